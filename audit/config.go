package audit

import (
	"fmt"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// Config is an audit configuration (audit.yaml): the model's predictions
// on the splits of one or more benchmarks, the training corpora the model
// may have seen, and the figures its authors reported.
//
//	name: TexTeller audit
//	model: TexTeller_en
//	train:                       # corpora the test labels are looked up in
//	  - {name: crohme_train, path: labels/crohme_train_captions.json}
//	splits:
//	  - name: crohme_2014
//	    benchmark: crohme        # splits of one benchmark are compared
//	    role: test               # train, val or test
//	    predictions: texteller/crohme_2014.json
//	    reported_exprate: 88.0   # percent, as published
//	corrections: corrections.jsonl   # optional: known label errors
//
// Relative paths are relative to the configuration file.
type Config struct {
	Name  string         `yaml:"name" json:"name"`
	Model string         `yaml:"model" json:"model"`
	Train []CorpusConfig `yaml:"train" json:"train"`
	// TrainImages are training image sets (folders, CROHME split folders,
	// archives, Parquet) the test images are compared with.
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
	// DB is the label index folder (default: under the user cache dir).
	DB string `yaml:"db" json:"-"`
	// NoGapDelta is δ of the NO_GAP check, in percentage points (default 2).
	NoGapDelta float64 `yaml:"no_gap_delta" json:"no_gap_delta"`
	// Alpha is the significance level (default 0.05).
	Alpha float64 `yaml:"alpha" json:"alpha"`
	// MaxLabelBytes skips items with a longer label, counted per input
	// (default dataset.DefaultMaxLabelBytes).
	MaxLabelBytes int `yaml:"max_label_bytes" json:"max_label_bytes,omitempty"`

	dir string
}

// CorpusConfig names a training corpus.
type CorpusConfig struct {
	Name   string `yaml:"name" json:"name"`
	Path   string `yaml:"path" json:"path"`
	Format string `yaml:"format" json:"format,omitempty"`
	Field  string `yaml:"field" json:"field,omitempty"`
}

// SplitConfig names one split's predictions.
type SplitConfig struct {
	Name      string `yaml:"name" json:"name"`
	Benchmark string `yaml:"benchmark" json:"benchmark"`
	Role      string `yaml:"role" json:"role"`
	// Predictions is a file of ground truths and predictions.
	Predictions string `yaml:"predictions" json:"predictions"`
	Format      string `yaml:"format" json:"format,omitempty"`
	Field       string `yaml:"field" json:"field,omitempty"`
	IDField     string `yaml:"id_field" json:"id_field,omitempty"`
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
	var c Config
	if err := yaml.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.dir = filepath.Dir(path)
	return &c, c.check()
}

func (c *Config) check() error {
	if len(c.Splits) == 0 {
		return fmt.Errorf("audit config: no splits")
	}
	seen := map[string]bool{}
	for i, s := range c.Splits {
		if s.Name == "" || s.Predictions == "" {
			return fmt.Errorf("audit config: split %d needs a name and a predictions file", i+1)
		}
		if seen[s.Name] {
			return fmt.Errorf("audit config: split %q given twice", s.Name)
		}
		seen[s.Name] = true
		switch s.Role {
		case "train", "val", "test":
		default:
			return fmt.Errorf("audit config: split %s: role must be train, val or test (got %q)", s.Name, s.Role)
		}
		if s.Benchmark == "" {
			c.Splits[i].Benchmark = s.Name
		}
	}
	for _, list := range [][]CorpusConfig{c.Train, c.TrainImages} {
		for i, t := range list {
			if t.Path == "" {
				return fmt.Errorf("audit config: training corpus %d has no path", i+1)
			}
			if t.Name == "" {
				list[i].Name = filepath.Base(t.Path)
			}
		}
	}
	if len(c.Levels) == 0 {
		c.Levels = []string{"audit", "ws"}
	}
	if c.Profile == "" {
		c.Profile = "unimernet"
	}
	if c.NoGapDelta == 0 {
		c.NoGapDelta = 2
	}
	if c.Alpha == 0 {
		c.Alpha = 0.05
	}
	return nil
}

// Path resolves a path of the configuration.
func (c *Config) Path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.dir, p)
}
