// Package report writes audit results for people and for machines: aligned
// text tables for the terminal, and per-item evidence as JSONL or Parquet.
// Every writer is deterministic: the same results give the same bytes.
package report
