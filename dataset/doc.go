// Package dataset reads and writes the files formula-recognition benchmarks
// come in: label lists, prediction dumps and annotation folders.
//
// Every reader streams. [Scan] opens a [Source], detects its [Format] when
// none is given, and calls a function for each [Item] in file order, so a
// corpus of tens of millions of labels is never held in memory. A record
// that cannot be used (invalid UTF-8, an empty or over-long label, a
// malformed InkML file, a row whose label is null) is never fatal: it is
// counted in [Stats] under its reason, with the first few kept as examples.
// A fault that stops the rest of a file from being read (a JSON syntax
// error, a JSON array or map without its closing bracket, a truncated
// Parquet page) is recorded in Stats.FileError; the items read before it
// are kept. An input with no record at all is marked Stats.Empty. Both make
// the input partial ([Stats.Shortfall]). A detection made on mixed evidence
// is explained in Stats.FormatNote ([DetectNote]).
//
// Formats handled (see [Format]):
//
//	json-strings  a JSON array of strings; ids are 0-based positions
//	json-objects  a JSON array of objects: TexTeller {gt,pred,img_id},
//	              CDM input [{img_id,gt,pred}]
//	json-map      a JSON object name → object: TAMER {gt,pred,dist},
//	              SAN/CAN bad cases {label,predi}
//	jsonl         one JSON object per line
//	caption       name<TAB>label or name<SPACE>label per line (CROHME
//	              caption.txt, WAP results); a folder holding caption.txt
//	lines         one label per line; ids are 0-based line numbers
//	              (im2latex *.formulas.norm.txt)
//	csv, tsv      a header row, then records; quoted fields may span lines
//	parquet       a string column such as latex_formula (Hugging Face)
//	inkml         one InkML file or a folder of them; the label is the
//	              truth annotation that is a direct child of <ink>
package dataset
