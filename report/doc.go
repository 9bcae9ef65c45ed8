// Package report writes results for people and for machines; it reads no
// input and computes no finding, only lays out what it is handed.
//
// For the terminal, aligned text tables of each command's result
// (OverlapText, NearDupText, AuditText, ScoreText, CompareText; Table).
// For machines, per-item evidence as JSONL or Parquet (CreateItems,
// WriteItems, chosen by the file's extension). For reviewers, report
// folders: WriteAudit (findings.json, report.md, a self-contained
// report.html whose first screen is the verdicts, the figures, the items
// behind each finding drawn as CDM sees them, items.parquet and
// items.jsonl, and the test fingerprints the audit computed) and
// WriteCompare (comparison.json, the leaderboards, figures and items);
// WriteScore and WriteScoreVis for a score run. A command's --report page
// (Page, OverlapPage, NearDupPage, DedupPage) is one self-contained HTML
// file with its images inlined; near-duplicate pairs are drawn side by
// side as given and as normalized (PairCard, WriteGallery,
// WriteNearDupGallery). The figures (Bars, Forest, CDF, Histogram) are
// drawn with gonum/plot.
//
// Every writer is deterministic: the same results give the same bytes (no
// timestamps, maps in key order).
package report
