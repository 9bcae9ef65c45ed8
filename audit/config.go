package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/metrics/cdm"
)

// Config is an audit configuration (audit.yaml): the model's predictions
// on the splits of one or more benchmarks, the training corpora the model
// may have seen, and the figures its authors reported. ExampleConfig is a
// commented example of every key ("leakaudit audit init" prints it).
//
// LoadConfig is strict: an unknown key, an unknown format, role, level or
// CDM profile is an error naming the key and its line. Relative paths are
// relative to the configuration file. Any input the command line accepts
// (a file in any reader format, a caption folder, an InkML folder, an
// archive or Parquet file of images) is accepted here.
type Config struct {
	Name  string         `yaml:"name" json:"name"`
	Model string         `yaml:"model" json:"model"`
	Train []CorpusConfig `yaml:"train" json:"train"`
	// TrainImages are training image sets (folders, CROHME split folders,
	// archives, Parquet, or an image fingerprint standing in for them:
	// leakaudit fingerprint --images) the test images are compared with.
	TrainImages []CorpusConfig `yaml:"train_images" json:"train_images,omitempty"`
	// Splits lists the prediction files.
	Splits []SplitConfig `yaml:"splits" json:"splits"`
	// Levels are the canonical levels of the overlap (default audit, ws).
	Levels []string `yaml:"levels" json:"levels"`
	// Profile is the CDM profile (default unimernet).
	Profile string `yaml:"cdm_profile" json:"cdm_profile"`
	// Corrections is a JSONL file of known label errors.
	Corrections string `yaml:"corrections" json:"corrections,omitempty"`
	// ReportedSource cites where the reported ExpRates come from.
	ReportedSource string `yaml:"reported_source" json:"reported_source,omitempty"`
	// DB is the index folder (default: under the user cache dir): the
	// label keys and, with TrainImages, the image hashes, both inside it.
	DB string `yaml:"db" json:"-"`
	// NoGapDelta is δ of the NO_GAP check, in percentage points (default 2).
	NoGapDelta float64 `yaml:"no_gap_delta" json:"no_gap_delta"`
	// Alpha is the significance level (default 0.05).
	Alpha float64 `yaml:"alpha" json:"alpha"`
	// MaxLabelBytes skips items with a longer label, counted per input
	// (default dataset.DefaultMaxLabelBytes). It applies to every input:
	// predictions, training corpora, and so to the overlap.
	MaxLabelBytes int `yaml:"max_label_bytes" json:"max_label_bytes,omitempty"`
	// Near > 0 adds a near-label stratum to the overlap and the
	// contamination gap: items with a training label within Near token
	// edits (tokens level, sequences of at least NearMin tokens, default
	// index.DefaultNearMin(Near)). It streams the training corpora's labels, so
	// fingerprints cannot be used with it.
	Near    int `yaml:"near" json:"near,omitempty"`
	NearMin int `yaml:"near_min" json:"near_min,omitempty"`

	dir string // the configuration file's folder; "" for a Config built in Go
}

// CorpusConfig names a training corpus.
type CorpusConfig struct {
	Name   string `yaml:"name" json:"name"`
	Path   string `yaml:"path" json:"path"`
	Format string `yaml:"format" json:"format,omitempty"`
	Field  string `yaml:"field" json:"field,omitempty"`
	// IDField is the id field or column (default: the format's).
	IDField string `yaml:"id_field" json:"id_field,omitempty"`
}

// SplitConfig names one split's predictions.
type SplitConfig struct {
	Name      string `yaml:"name" json:"name"`
	Benchmark string `yaml:"benchmark" json:"benchmark"`
	Role      string `yaml:"role" json:"role"`
	// Predictions is a file of ground truths and predictions.
	Predictions string `yaml:"predictions" json:"predictions,omitempty"`
	// Labels, instead of Predictions, is the split's labels alone: a
	// dataset provenance audit (overlap, near-duplicates, the split's own
	// fingerprints) in which the model checks do not run.
	Labels  string `yaml:"labels" json:"labels,omitempty"`
	Format  string `yaml:"format" json:"format,omitempty"`
	Field   string `yaml:"field" json:"field,omitempty"`
	IDField string `yaml:"id_field" json:"id_field,omitempty"`
	// Images are the split's images (ids as in the predictions), for
	// near-duplicate evidence.
	Images string `yaml:"images" json:"images,omitempty"`
	// ReportedExpRate is the published text ExpRate in percent, if any.
	ReportedExpRate *float64 `yaml:"reported_exprate" json:"reported_exprate,omitempty"`
}

// ConfigError is an invalid configuration: YAML that does not parse, an
// unknown key, or a value outside what its key accepts. Its message names
// the key and, for a configuration read from YAML, its line. The command
// line reports it as a usage error (exit status 2).
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *ConfigError) Unwrap() error { return e.Err }

// LoadConfig reads and checks a configuration file. An invalid
// configuration is a *ConfigError; a file that cannot be read is not.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, &ConfigError{fmt.Errorf("%s: %w", path, err)}
	}
	c.dir = filepath.Dir(path)
	if _, err := NewPlan(c); err != nil {
		return nil, &ConfigError{fmt.Errorf("%s: %w", path, err)}
	}
	return c, nil
}

// ParseConfig decodes a configuration strictly: unknown keys, values that
// name no known format, role, level or profile, numbers out of their
// range and names given twice are errors (a *ConfigError) naming their
// line. Relative paths stay relative to the current folder.
func ParseConfig(data []byte) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &ConfigError{err}
	}
	if err := checkValues(&root); err != nil {
		return nil, &ConfigError{err}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, &ConfigError{err}
	}
	if _, err := NewPlan(&c); err != nil {
		return nil, err
	}
	return &c, nil
}

// checkValues checks every value of the configuration as written, so that
// the error can name its line: the values of closed sets (format, role,
// levels, cdm_profile), the ranges of numbers, and names given twice. A
// key given as null counts as not given. Unknown keys are left to the
// decoder.
func checkValues(doc *yaml.Node) error {
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil // the decoder says what is wrong
	}
	return eachKey(root, func(k, v *yaml.Node) error {
		switch k.Value {
		case "alpha":
			return checkFloat(v, func(x float64) bool { return x > 0 && x < 1 }, "a significance level strictly between 0 and 1, such as 0.05")
		case "no_gap_delta":
			return checkFloat(v, func(x float64) bool { return x > 0 && x <= 100 }, "a margin in percentage points above 0 and at most 100, such as 2")
		case "max_label_bytes":
			return checkInt(v, 1, "a number of bytes of at least 1 (leave the key out for the default, 16384)")
		case "near":
			return checkInt(v, 0, "0 (off) or a positive number of token edits")
		case "near_min":
			return checkInt(v, 1, "a number of tokens of at least 1 (leave the key out for the default, 4(near+1))")
		case "cdm_profile":
			return checkProfile(v.Value)
		case "levels":
			return checkLevels(v)
		case "train":
			return checkList(v, "a training corpus", checkCorpus)
		case "train_images":
			return checkList(v, "a training image set", checkImageCorpus)
		case "splits":
			return checkList(v, "a split", checkSplit)
		}
		return nil
	})
}

// eachKey calls f with every key and value of the mapping m, and names
// the key and the value's line in f's error.
func eachKey(m *yaml.Node, f func(k, v *yaml.Node) error) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if isNull(v) {
			continue
		}
		if err := f(k, v); err != nil {
			var le lineError
			if errors.As(err, &le) {
				return err // already names a deeper line
			}
			return lineError{fmt.Errorf("line %d: %s: %w", v.Line, k.Value, err)}
		}
	}
	return nil
}

// lineError is an error that already names its line.
type lineError struct{ error }

func (e lineError) Unwrap() error { return e.error }

func isNull(v *yaml.Node) bool { return v.Kind == yaml.ScalarNode && v.Tag == "!!null" }

// checkFloat checks a number for which in says true; want says which.
func checkFloat(v *yaml.Node, in func(float64) bool, want string) error {
	x, err := strconv.ParseFloat(v.Value, 64)
	if v.Kind != yaml.ScalarNode || err != nil || math.IsNaN(x) {
		return fmt.Errorf("%s is not a number; want %s", shown(v), want)
	}
	if !in(x) {
		return fmt.Errorf("%s is out of range; want %s", v.Value, want)
	}
	return nil
}

// shown names a value in an error: a scalar quoted, else its kind.
func shown(v *yaml.Node) string {
	switch v.Kind {
	case yaml.ScalarNode:
		return strconv.Quote(v.Value)
	case yaml.SequenceNode:
		return "a list"
	}
	return "a mapping"
}

// checkInt checks an integer of at least lo.
func checkInt(v *yaml.Node, lo int64, want string) error {
	x, err := strconv.ParseInt(v.Value, 10, 0)
	if v.Kind != yaml.ScalarNode || err != nil {
		return fmt.Errorf("%s is not an integer; want %s", shown(v), want)
	}
	if x < lo {
		return fmt.Errorf("%s is out of range; want %s", v.Value, want)
	}
	return nil
}

// checkLevels checks a non-empty list of known levels, each given once.
func checkLevels(v *yaml.Node) error {
	if v.Kind != yaml.SequenceNode {
		return fmt.Errorf("a list of levels, such as [audit, ws]")
	}
	if len(v.Content) == 0 {
		return fmt.Errorf("an empty list; give at least one level (%s), or leave the key out for [audit, ws]", canon.LevelNames())
	}
	seen := map[string]int{}
	for _, l := range v.Content {
		if _, err := canon.ParseLevels(l.Value); err != nil || l.Kind != yaml.ScalarNode || strings.Contains(l.Value, ",") {
			if err == nil {
				err = fmt.Errorf("%q is not one level name (known: %s)", l.Value, canon.LevelNames())
			}
			return lineError{fmt.Errorf("line %d: levels: %w", l.Line, err)}
		}
		if first, dup := seen[l.Value]; dup {
			return lineError{fmt.Errorf("line %d: levels: %q given twice (first on line %d)", l.Line, l.Value, first)}
		}
		seen[l.Value] = l.Line
	}
	return nil
}

// checkList checks a list of mappings with check, and that no two of
// them get the same name (a corpus's name defaults to its path's base).
func checkList(v *yaml.Node, what string, check func(m *yaml.Node) (name string, err error)) error {
	if v.Kind != yaml.SequenceNode {
		return fmt.Errorf("a list, one entry per %s", strings.TrimPrefix(strings.TrimPrefix(what, "a "), "an "))
	}
	seen := map[string]int{}
	for _, m := range v.Content {
		if m.Kind != yaml.MappingNode {
			return lineError{fmt.Errorf("line %d: %s: want a mapping such as {name: …, path: …}", m.Line, what)}
		}
		name, err := check(m)
		if err != nil {
			return err
		}
		if name == "" {
			continue
		}
		if first, dup := seen[name]; dup {
			return lineError{fmt.Errorf("line %d: %s named %q is given twice (first on line %d)", m.Line, what, name, first)}
		}
		seen[name] = m.Line
	}
	return nil
}

// checkCorpus checks a training corpus's values and returns its name.
func checkCorpus(m *yaml.Node) (string, error) {
	var name, path string
	err := eachKey(m, func(k, v *yaml.Node) error {
		switch k.Value {
		case "name":
			name = v.Value
		case "path":
			path = v.Value
		case "format":
			_, err := dataset.ParseFormat(v.Value)
			return err
		}
		return nil
	})
	if name == "" && path != "" {
		name = filepath.Base(path)
	}
	return name, err
}

// checkImageCorpus checks a training image set's values and returns its
// name: format and id_field, which no image source uses, are refused
// rather than ignored.
func checkImageCorpus(m *yaml.Node) (string, error) {
	err := eachKey(m, func(k, v *yaml.Node) error {
		switch k.Value {
		case "format", "id_field":
			return fmt.Errorf("not used for training images (their format is detected; ids are file names, archive entries or rows)")
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return checkCorpus(m)
}

// checkSplit checks a split's values and returns its name.
func checkSplit(m *yaml.Node) (string, error) {
	var name string
	err := eachKey(m, func(k, v *yaml.Node) error {
		switch k.Value {
		case "name":
			name = v.Value
		case "format":
			_, err := dataset.ParseFormat(v.Value)
			return err
		case "role":
			return checkRole(v.Value)
		case "reported_exprate":
			return checkFloat(v, func(x float64) bool { return x >= 0 && x <= 100 }, "a percentage from 0 to 100, such as 88.0")
		}
		return nil
	})
	return name, err
}

func checkRole(r string) error {
	switch r {
	case "train", "val", "test":
		return nil
	}
	return fmt.Errorf("role must be train, val or test (got %q)", r)
}

func checkProfile(p string) error {
	if _, ok := cdm.Profiles[p]; ok || p == "" {
		return nil
	}
	var names []string
	for n := range cdm.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Errorf("unknown CDM profile %q (one of %s)", p, strings.Join(names, ", "))
}

// A Plan is a configuration checked once and resolved: its defaults
// filled in, paths made relative to the configuration file, formats,
// levels and the profile parsed. NewPlan is the only place defaults are
// filled in; the Config it was made from is left as it was.
type Plan struct {
	// Config is the configuration with its defaults filled in: the one
	// the findings record.
	Config Config

	levels      []canon.Level
	profile     cdm.Profile
	limits      dataset.Limits
	train       []index.CorpusInput
	trainImages []index.ImageCorpusInput
	splits      []splitPlan
	corrections string
}

// splitPlan is one split with its sources resolved.
type splitPlan struct {
	cfg    SplitConfig
	source dataset.Source
	images string // "" when the split has none
	// labelsOnly: the split has labels and no predictions.
	labelsOnly bool
}

// NewPlan checks c and resolves it into a plan, on a copy of c with its
// defaults filled in; c is not changed. Its errors are *ConfigError.
func NewPlan(c *Config) (*Plan, error) {
	p, err := c.clone().resolve()
	if err != nil {
		return nil, &ConfigError{err}
	}
	return p, nil
}

// clone is a copy of c that shares nothing with it that resolve changes.
func (c *Config) clone() *Config {
	d := *c
	d.Train = slices.Clone(c.Train)
	d.TrainImages = slices.Clone(c.TrainImages)
	d.Splits = slices.Clone(c.Splits)
	d.Levels = slices.Clone(c.Levels)
	return &d
}

// checkRanges checks the numbers of a configuration, where zero means
// the default (a configuration built in Go; the YAML ones were checked
// with their lines by checkValues).
func (c *Config) checkRanges() error {
	switch {
	case c.Alpha < 0 || c.Alpha >= 1 || math.IsNaN(c.Alpha):
		return fmt.Errorf("audit config: alpha %v: want a significance level strictly between 0 and 1", c.Alpha)
	case c.NoGapDelta < 0 || c.NoGapDelta > 100 || math.IsNaN(c.NoGapDelta):
		return fmt.Errorf("audit config: no_gap_delta %v: want a margin above 0 and at most 100 percentage points", c.NoGapDelta)
	case c.MaxLabelBytes < 0:
		return fmt.Errorf("audit config: max_label_bytes %d: want at least 1 (0: the default)", c.MaxLabelBytes)
	case c.Near < 0 || c.NearMin < 0:
		return fmt.Errorf("audit config: near and near_min must not be negative")
	case c.Near == 0 && c.NearMin > 0:
		return fmt.Errorf("audit config: near_min %d needs near (the near stratum is off)", c.NearMin)
	}
	for _, s := range c.Splits {
		if r := s.ReportedExpRate; r != nil && (*r < 0 || *r > 100 || math.IsNaN(*r)) {
			return fmt.Errorf("audit config: split %s: reported_exprate %v: want a percentage from 0 to 100", s.Name, *r)
		}
	}
	return nil
}

// resolve is NewPlan's work: it fills in c's defaults (c is NewPlan's
// copy) and resolves c into a plan.
func (c *Config) resolve() (*Plan, error) {
	if len(c.Splits) == 0 {
		return nil, fmt.Errorf("audit config: no splits")
	}
	if err := c.checkRanges(); err != nil {
		return nil, err
	}
	c.fillDefaults()
	p := &Plan{limits: dataset.Limits{MaxLabelBytes: c.MaxLabelBytes}, corrections: c.Path(c.Corrections)}
	var err error
	if p.levels, err = canon.ParseLevels(strings.Join(c.Levels, ",")); err != nil {
		return nil, fmt.Errorf("audit config: levels: %w", err)
	}
	if err := checkProfile(c.Profile); err != nil {
		return nil, fmt.Errorf("audit config: cdm_profile: %w", err)
	}
	p.profile = cdm.Profiles[c.Profile]
	if err := c.resolveSplits(p); err != nil {
		return nil, err
	}
	if err := c.resolveTrain(p); err != nil {
		return nil, err
	}
	p.Config = *c
	return p, nil
}

// fillDefaults gives the keys left out their defaults.
func (c *Config) fillDefaults() {
	if len(c.Levels) == 0 {
		c.Levels = []string{"audit", "ws"}
	}
	if c.Profile == "" {
		c.Profile = cdm.UniMERNet.Name
	}
	if c.NoGapDelta == 0 {
		c.NoGapDelta = 2
	}
	if c.Alpha == 0 {
		c.Alpha = 0.05
	}
	if c.Near > 0 && c.NearMin == 0 {
		c.NearMin = index.DefaultNearMin(c.Near)
	}
}

// resolveSplits checks the splits, fills in their benchmarks, and adds
// them to p with their sources.
func (c *Config) resolveSplits(p *Plan) error {
	seen := map[string]bool{}
	for i := range c.Splits {
		s := &c.Splits[i]
		if s.Name == "" || (s.Predictions == "") == (s.Labels == "") {
			return fmt.Errorf("audit config: split %d needs a name and either a predictions file or a labels file (labels alone: no model checks)", i+1)
		}
		if s.Labels != "" && s.ReportedExpRate != nil {
			return fmt.Errorf("audit config: split %s: reported_exprate needs predictions to compare with", s.Name)
		}
		if seen[s.Name] {
			return fmt.Errorf("audit config: split %q given twice", s.Name)
		}
		seen[s.Name] = true
		if err := checkRole(s.Role); err != nil {
			return fmt.Errorf("audit config: split %s: %w", s.Name, err)
		}
		if s.Benchmark == "" {
			s.Benchmark = s.Name
		}
		f, err := dataset.ParseFormat(s.Format)
		if err != nil {
			return fmt.Errorf("audit config: split %s: %w", s.Name, err)
		}
		path := s.Predictions
		if s.Labels != "" {
			path = s.Labels
		}
		p.splits = append(p.splits, splitPlan{cfg: *s, images: c.Path(s.Images), labelsOnly: s.Labels != "",
			source: dataset.Source{Path: c.Path(path), Format: f, Field: s.Field, IDField: s.IDField, Limits: p.limits}})
	}
	return nil
}

// resolveTrain checks the training corpora and image sets, fills in
// their names, and adds them to p with their sources.
func (c *Config) resolveTrain(p *Plan) error {
	for k, list := range [][]CorpusConfig{c.Train, c.TrainImages} {
		key := []string{"train", "train_images"}[k]
		names := map[string]bool{}
		for i := range list {
			t := &list[i]
			if t.Path == "" {
				return fmt.Errorf("audit config: %s: training corpus %d has no path", key, i+1)
			}
			if t.Name == "" {
				t.Name = filepath.Base(t.Path)
			}
			if names[t.Name] {
				return fmt.Errorf("audit config: %s: a training corpus named %q is given twice", key, t.Name)
			}
			names[t.Name] = true
		}
	}
	for _, t := range c.Train {
		f, err := dataset.ParseFormat(t.Format)
		if err != nil {
			return fmt.Errorf("audit config: training corpus %s: %w", t.Name, err)
		}
		p.train = append(p.train, index.CorpusInput{Name: t.Name,
			Source: dataset.Source{Path: c.Path(t.Path), Format: f, Field: t.Field, IDField: t.IDField, Limits: p.limits}})
	}
	for _, t := range c.TrainImages {
		p.trainImages = append(p.trainImages, index.ImageCorpusInput{Name: t.Name, Source: dataset.ImageSource{Path: c.Path(t.Path), Field: t.Field}})
	}
	return nil
}

// Path resolves a path of the configuration: relative to the
// configuration file's folder.
func (c *Config) Path(p string) string {
	if p == "" || filepath.IsAbs(p) || c.dir == "" {
		return p
	}
	return filepath.Join(c.dir, p)
}

// ExampleConfig is a commented audit configuration with every key.
const ExampleConfig = `# leakaudit audit configuration. Paths are relative to this file.
# Unknown keys are errors. Run: leakaudit audit --config audit.yaml --out report/
name: TexTeller_en audit                # the report's title
model: TexTeller_en                     # the model whose predictions are audited
reported_source: TexTeller technical report   # where reported_exprate figures come from

# Training corpora the test labels are looked up in. path: any input the
# command line reads: a JSON/JSONL/CSV/TSV/Parquet file, a caption.txt or a
# CROHME split folder holding one, a file of one label per line, InkML files
# or a folder of them. format, field and id_field are optional (detected).
train:
  - {name: crohme_train, path: labels/crohme_train_captions.json}
  - {name: hme100k_train, path: labels/hme100k_train_captions.json}
  # - {name: crohme_folder, path: crohme/train}            # a caption folder
  # - {name: tex80m, path: tex80m.parquet, field: latex_formula}

# Training images the splits' images are compared with (optional): image
# folders, CROHME split folders, zip/tar archives, Parquet image structs,
# InkML (rasterized), or an image fingerprint in their place
# (leakaudit fingerprint --images; not salted).
# train_images:
#   - {name: crohme_train_images, path: crohme/train}
#   # - {name: private_images, path: private.img.fp.parquet}

# One entry per prediction file: any reader format with a ground truth and
# a prediction per item ({gt, pred, img_id} JSON, JSONL, CSV, Parquet, TAMER's
# name -> {gt, pred} map). A file in which more than half of the items have
# no prediction is refused (a label list goes under labels:).
splits:
  - name: crohme_2014
    benchmark: crohme          # splits of one benchmark are compared (inversions)
    role: test                 # train, val or test
    predictions: texteller/crohme_2014.json
    reported_exprate: 88.0     # percent, as published (optional)
    # format: json-objects     # optional: the input format (detected)
    # field: gt                # optional: the ground-truth field
    # id_field: img_id         # optional: the id field
    # images: crohme/2014      # optional: the split's images, for near-duplicates
  # - {name: mybench_test, benchmark: mybench, role: test, labels: mybench/test.json}
  #                            # labels instead of predictions: overlap and near-duplicates only
  - {name: crohme_train, benchmark: crohme, role: train, predictions: texteller/crohme_train.json}

# corrections: corrections.jsonl   # optional: known label errors, one JSON object a line
# levels: [audit, ws]              # canonical levels of the overlap: raw, audit, ws, tokens, render
# cdm_profile: unimernet           # unimernet (parity), omnidocbench or strict
# alpha: 0.05                      # significance level of every test, strictly between 0 and 1
# no_gap_delta: 2                  # NO_GAP margin, percentage points, above 0 and at most 100
# max_label_bytes: 16384           # longer labels are skipped and counted, in every input (at least 1)
# near: 2                          # a near-label stratum: a training label within 2 token edits
# near_min: 12                     # shortest token sequence the near stratum considers (at least 1; default 4(near+1))
# db: /path/to/index               # label index folder (default: the user cache)
`
