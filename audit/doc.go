// Package audit audits a model's benchmark results: it takes the model's
// predictions on the splits of its benchmarks, the training corpora and
// images it may have seen and the figures its authors reported (a Config,
// read from YAML by LoadConfig), and derives the Findings a reviewer
// would publish.
//
// NewPlan checks a Config and resolves it once (its defaults filled in on
// a copy, paths made relative to the configuration file, formats, levels
// and the CDM profile parsed); the package never changes a Config it is
// given. Run executes the plan in phases, all under the caller's context:
//
//   - read and score: every input digested once, every split read once and
//     its predictions scored with CDM and the text ExpRate;
//   - look up: the test labels in the training corpora, at every
//     canonical level and within the near edits (package overlap);
//   - image duplicates: the splits' images among the training images
//     (package neardup);
//   - item evidence: per item, exactness, class (ClassA1 … ClassB2),
//     training matches, near-copy, suspect rules and known errors; per
//     split, the CDM figures;
//   - findings: split inversions, CDM reversals, the contamination gap,
//     memorized label errors (Anomaly) and one Verdict per test split;
//   - test fingerprints: the test splits' labels digested, for others to
//     check against their own training data without receiving it.
//
// The statistics are described in docs/audit-statistics.md and the
// wording of the verdicts in docs/report-verdicts.md. Findings hold
// nothing that depends on the machine or the time: the same inputs give
// the same bytes. The package writes nothing but the index folder that
// packages overlap and neardup use; package report writes the findings.
package audit
