package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/leakaudit/leakaudit/canon"

	"gopkg.in/yaml.v3"

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

// LoadConfig reads and checks a configuration file.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.dir = filepath.Dir(path)
	if _, err := c.plan(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseConfig decodes a configuration strictly: unknown keys, and values
// that name no known format, role, level or profile, are errors with their
// line. Relative paths stay relative to the current folder.
func ParseConfig(data []byte) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	if err := checkValues(&root); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if _, err := c.plan(); err != nil {
		return nil, err
	}
	return &c, nil
}

// checkValues walks the YAML tree and checks every value whose key has a
// closed set of values, so that the error can name the line.
func checkValues(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if err := checkValue(k.Value, v); err != nil {
				return fmt.Errorf("line %d: %s: %w", v.Line, k.Value, err)
			}
		}
	}
	for _, c := range n.Content {
		if err := checkValues(c); err != nil {
			return err
		}
	}
	return nil
}

func checkValue(key string, v *yaml.Node) error {
	switch key {
	case "format":
		_, err := dataset.ParseFormat(v.Value)
		return err
	case "role":
		return checkRole(v.Value)
	case "cdm_profile":
		return checkProfile(v.Value)
	case "levels":
		if v.Kind != yaml.SequenceNode {
			return fmt.Errorf("a list of levels, such as [audit, ws]")
		}
		for _, l := range v.Content {
			if _, err := canon.ParseLevels(l.Value); err != nil {
				return fmt.Errorf("line %d: %w", l.Line, err)
			}
		}
	}
	return nil
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

// A plan is a configuration checked once and resolved: paths relative to
// the configuration file, formats, levels and the profile parsed.
type plan struct {
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

// plan checks the configuration, fills in its defaults, and resolves it.
func (c *Config) plan() (*plan, error) {
	if len(c.Splits) == 0 {
		return nil, fmt.Errorf("audit config: no splits")
	}
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
	if c.Near < 0 || c.NearMin < 0 {
		return nil, fmt.Errorf("audit config: near and near_min must not be negative")
	}
	if c.Near > 0 && c.NearMin == 0 {
		c.NearMin = index.DefaultNearMin(c.Near)
	}
	p := &plan{limits: dataset.Limits{MaxLabelBytes: c.MaxLabelBytes}, corrections: c.Path(c.Corrections)}
	var err error
	if p.levels, err = canon.ParseLevels(strings.Join(c.Levels, ",")); err != nil {
		return nil, fmt.Errorf("audit config: levels: %w", err)
	}
	if err := checkProfile(c.Profile); err != nil {
		return nil, fmt.Errorf("audit config: cdm_profile: %w", err)
	}
	p.profile = cdm.Profiles[c.Profile]
	seen := map[string]bool{}
	for i := range c.Splits {
		s := &c.Splits[i]
		if s.Name == "" || (s.Predictions == "") == (s.Labels == "") {
			return nil, fmt.Errorf("audit config: split %d needs a name and either a predictions file or a labels file (labels alone: no model checks)", i+1)
		}
		if s.Labels != "" && s.ReportedExpRate != nil {
			return nil, fmt.Errorf("audit config: split %s: reported_exprate needs predictions to compare with", s.Name)
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("audit config: split %q given twice", s.Name)
		}
		seen[s.Name] = true
		if err := checkRole(s.Role); err != nil {
			return nil, fmt.Errorf("audit config: split %s: %w", s.Name, err)
		}
		if s.Benchmark == "" {
			s.Benchmark = s.Name
		}
		f, err := dataset.ParseFormat(s.Format)
		if err != nil {
			return nil, fmt.Errorf("audit config: split %s: %w", s.Name, err)
		}
		path := s.Predictions
		if s.Labels != "" {
			path = s.Labels
		}
		p.splits = append(p.splits, splitPlan{cfg: *s, images: c.Path(s.Images), labelsOnly: s.Labels != "",
			source: dataset.Source{Path: c.Path(path), Format: f, Field: s.Field, IDField: s.IDField, Limits: p.limits}})
	}
	for _, list := range [][]CorpusConfig{c.Train, c.TrainImages} {
		for i := range list {
			t := &list[i]
			if t.Path == "" {
				return nil, fmt.Errorf("audit config: training corpus %d has no path", i+1)
			}
			if t.Name == "" {
				t.Name = filepath.Base(t.Path)
			}
		}
	}
	for _, t := range c.Train {
		f, err := dataset.ParseFormat(t.Format)
		if err != nil {
			return nil, fmt.Errorf("audit config: training corpus %s: %w", t.Name, err)
		}
		p.train = append(p.train, index.CorpusInput{Name: t.Name,
			Source: dataset.Source{Path: c.Path(t.Path), Format: f, Field: t.Field, IDField: t.IDField, Limits: p.limits}})
	}
	for _, t := range c.TrainImages {
		p.trainImages = append(p.trainImages, index.ImageCorpusInput{Name: t.Name, Source: dataset.ImageSource{Path: c.Path(t.Path), Field: t.Field}})
	}
	return p, nil
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
# name -> {gt, pred} map).
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
# alpha: 0.05                      # significance level of every test
# no_gap_delta: 2                  # NO_GAP margin, percentage points
# max_label_bytes: 16384           # longer labels are skipped and counted, in every input
# near: 2                          # a near-label stratum: a training label within 2 token edits
# near_min: 12                     # shortest token sequence the near stratum considers (default 4(near+1))
# db: /path/to/index               # label index folder (default: the user cache)
`
