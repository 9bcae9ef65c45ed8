// Package dataset reads and writes the files formula-recognition benchmarks
// come in: label lists, prediction dumps and annotation folders (labels),
// and image folders, archives, Parquet image columns and InkML (images).
//
// # Labels
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
//
// [ScanMapped] is Scan with a function computed for every item on all
// cores (canonicalization, tokenizing), delivered in file order.
//
// # Images
//
// [ScanImages] reads an [ImageSource] in a stable order: a folder of PNG,
// BMP or JPEG files (a CROHME split folder, with caption.txt and img/,
// gives each image its label by file stem), a zip or tar archive, a
// Parquet file with an image struct column, or InkML files, whose strokes
// are rasterized with one pen ([RasterizeInk], [InkOptions]). An
// [ImageItem] holds its image still encoded, so that callers decode
// ([ImageItem.Decode]) and hash on many cores. An image that cannot be
// read or decoded, or is over a limit, is skipped and counted, as a
// label record is.
//
// # Limits
//
// [Limits] bound the label readers: the longest label delivered
// ([DefaultMaxLabelBytes], longer ones skipped and counted) and the largest
// input file ([DefaultMaxFileBytes], refused). [ImageLimits] bound the image
// readers against decompression bombs: an image's encoded size, its
// declared pixels and sides (checked in its header before it is decoded)
// and an archive's entries (read from its directory record before
// anything else). Skips caused only by a limit the caller set are told
// apart from damaged input ([Stats.Skips]).
//
// # Completeness
//
// [Completeness] records, for a job's report, whether every input was
// read whole: the inputs read only in part ([Shortfall]) and the format
// notes; [Stats.NoItems] says why a read delivered nothing.
//
// # Writers
//
// [WriteSubset] and [WriteImageSubset] write a release without some of its
// items, in the source's own format and layout: every kept record's or
// image's bytes are copied as they were (a Parquet file keeps its schema,
// metadata and compression, and is rewritten page by page where its pages
// allow, else row by row), never from outside the source, and a source
// read only in part is refused. [StreamWriter] writes a stream file's
// subset during the caller's own scan of it, to the same bytes.
package dataset
