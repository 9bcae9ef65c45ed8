package compare

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/leakaudit/leakaudit/audit"
	"github.com/leakaudit/leakaudit/canon"
	"github.com/leakaudit/leakaudit/dataset"
	"github.com/leakaudit/leakaudit/index"
	"github.com/leakaudit/leakaudit/metrics/cdm"
)

// Config is a comparison configuration (compare.yaml): the test splits,
// and the models with their predictions on them, their training data and
// their reported ExpRates. ExampleConfig is a commented example of every
// key ("leakaudit compare init" prints it).
//
// LoadConfig is as strict as the audit's: an unknown key, a format,
// level or CDM profile that does not exist, a number out of its range, a
// name given twice, a prediction for a split that is not listed, is an
// error naming its line. Relative paths are relative to the file.
type Config struct {
	Name   string        `yaml:"name" json:"name"`
	Splits []SplitConfig `yaml:"splits" json:"splits"`
	Models []ModelConfig `yaml:"models" json:"models"`
	// Levels are the canonical levels at which a label counts as seen
	// (default audit, ws).
	Levels []string `yaml:"levels" json:"levels"`
	// Profile is the CDM profile (default unimernet).
	Profile string `yaml:"cdm_profile" json:"cdm_profile"`
	// Alpha is the significance level (default 0.05).
	Alpha float64 `yaml:"alpha" json:"alpha"`
	// Near > 0 also counts a label as seen when a training label is
	// within Near token edits (sequences of at least NearMin tokens).
	Near    int `yaml:"near" json:"near,omitempty"`
	NearMin int `yaml:"near_min" json:"near_min,omitempty"`
	// MaxLabelBytes skips longer labels, in every input (default
	// dataset.DefaultMaxLabelBytes).
	MaxLabelBytes int `yaml:"max_label_bytes" json:"max_label_bytes,omitempty"`
	// DB is the index folder: a label index there that covers the
	// corpora is used, otherwise each corpus is read once and no label
	// index is kept (overlap --db builds one); training image hashes are
	// stored there. Without it, the user cache's.
	DB string `yaml:"db" json:"-"`

	dir string
}

// SplitConfig is one test split.
type SplitConfig struct {
	Name string `yaml:"name" json:"name"`
	// Labels, when given, fixes the split's items and their ground
	// truths (ids as in the predictions): predictions without a ground
	// truth take theirs from it, and every model is scored on it.
	// Without it the items are those of the prediction files, with the
	// first file's ground truth.
	Labels  string `yaml:"labels" json:"labels,omitempty"`
	Format  string `yaml:"format" json:"format,omitempty"`
	Field   string `yaml:"field" json:"field,omitempty"`
	IDField string `yaml:"id_field" json:"id_field,omitempty"`
	// Images are the split's images (ids as the items'), compared with
	// the models' training images.
	Images string `yaml:"images" json:"images,omitempty"`
}

// ModelConfig is one model.
type ModelConfig struct {
	Name string `yaml:"name" json:"name"`
	// Rules says the model was trained by the benchmark's rules: on the
	// benchmark's own training split only (listed under Train). It is
	// the control of the excess gap.
	Rules          bool                 `yaml:"rules" json:"rules"`
	ReportedSource string               `yaml:"reported_source" json:"reported_source,omitempty"`
	Train          []audit.CorpusConfig `yaml:"train" json:"train"`
	TrainImages    []audit.CorpusConfig `yaml:"train_images" json:"train_images,omitempty"`
	Predictions    []PredConfig         `yaml:"predictions" json:"predictions"`
}

// PredConfig is one model's predictions on one split.
type PredConfig struct {
	Split   string `yaml:"split" json:"split"`
	Path    string `yaml:"path" json:"path"`
	Format  string `yaml:"format" json:"format,omitempty"`
	Field   string `yaml:"field" json:"field,omitempty"`
	IDField string `yaml:"id_field" json:"id_field,omitempty"`
	// Reported is the published ExpRate in percent.
	Reported *float64 `yaml:"reported_exprate" json:"reported_exprate,omitempty"`
	// CDM is a folder written by "leakaudit score --out" for these
	// predictions (items.parquet or items.jsonl): its results are used
	// for the items whose ground truth and prediction it holds as they
	// are here, instead of scoring them again.
	CDM string `yaml:"cdm" json:"cdm,omitempty"`
}

// LoadConfig reads and checks a configuration file; an invalid
// configuration is an *audit.ConfigError (a usage error).
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, &audit.ConfigError{Err: fmt.Errorf("%s: %w", path, err)}
	}
	c.dir = filepath.Dir(path)
	return c, nil
}

// ParseConfig decodes and checks a configuration: unknown keys and
// invalid values are a *audit.ConfigError naming their line.
func ParseConfig(data []byte) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &audit.ConfigError{Err: err}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, &audit.ConfigError{Err: err}
	}
	if err := c.Check(); err != nil {
		var pe pathError
		if errors.As(err, &pe) {
			if line := lineOf(&root, pe.path); line > 0 {
				err = fmt.Errorf("line %d: %w", line, err)
			}
		}
		return nil, &audit.ConfigError{Err: err}
	}
	return &c, nil
}

// pathError is a value error at a key path such as
// models.1.predictions.0.reported_exprate.
type pathError struct {
	path []string
	msg  string
}

func (e pathError) Error() string { return strings.Join(e.path, ".") + ": " + e.msg }

func bad(msg string, path ...any) error {
	var p []string
	for _, x := range path {
		p = append(p, fmt.Sprint(x))
	}
	return pathError{p, msg}
}

// lineOf finds the line of the value at path (mapping keys and list
// indices) in a YAML document; 0 when it is not there.
func lineOf(n *yaml.Node, path []string) int {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := n.Line
	for _, k := range path {
		switch n.Kind {
		case yaml.MappingNode:
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					next = n.Content[i+1]
				}
			}
			if next == nil {
				return line
			}
			n = next
		case yaml.SequenceNode:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
		default:
			return line
		}
		line = n.Line
	}
	return line
}

// Check fills in the defaults and checks every value; errors name the
// key path.
func (c *Config) Check() error {
	if len(c.Splits) == 0 {
		return bad("no splits: give at least one test split", "splits")
	}
	if len(c.Models) < 2 {
		return bad(fmt.Sprintf("%d model(s): a comparison needs at least two", len(c.Models)), "models")
	}
	if len(c.Levels) == 0 {
		c.Levels = []string{"audit", "ws"}
	}
	seenLevel := map[string]bool{}
	for i, l := range c.Levels {
		if _, err := canon.ParseLevels(l); err != nil || strings.Contains(l, ",") {
			return bad(fmt.Sprintf("%q is not one level name (known: %s)", l, canon.LevelNames()), "levels", i)
		}
		if seenLevel[l] {
			return bad(fmt.Sprintf("%q given twice", l), "levels", i)
		}
		seenLevel[l] = true
	}
	if c.Profile == "" {
		c.Profile = cdm.UniMERNet.Name
	}
	if _, ok := cdm.Profiles[c.Profile]; !ok {
		var names []string
		for n := range cdm.Profiles {
			names = append(names, n)
		}
		sort.Strings(names)
		return bad(fmt.Sprintf("unknown CDM profile %q (one of %s)", c.Profile, strings.Join(names, ", ")), "cdm_profile")
	}
	switch {
	case c.Alpha < 0 || c.Alpha >= 1 || math.IsNaN(c.Alpha):
		return bad(fmt.Sprintf("%v: want a significance level strictly between 0 and 1, such as 0.05", c.Alpha), "alpha")
	case c.Near < 0:
		return bad(fmt.Sprintf("%d: want 0 (off) or a positive number of token edits", c.Near), "near")
	case c.NearMin < 0 || c.Near == 0 && c.NearMin > 0:
		return bad(fmt.Sprintf("%d: want a number of tokens of at least 1, and only with near", c.NearMin), "near_min")
	case c.MaxLabelBytes < 0:
		return bad(fmt.Sprintf("%d: want a number of bytes of at least 1", c.MaxLabelBytes), "max_label_bytes")
	}
	if c.Alpha == 0 {
		c.Alpha = 0.05
	}
	if c.Near > 0 && c.NearMin == 0 {
		c.NearMin = index.DefaultNearMin(c.Near)
	}
	splits := map[string]bool{}
	for i := range c.Splits {
		s := &c.Splits[i]
		if err := uniqueName(splits, s.Name, "split", "splits", i); err != nil {
			return err
		}
		if _, err := dataset.ParseFormat(s.Format); err != nil {
			return bad(err.Error(), "splits", i, "format")
		}
		if s.Labels == "" && (s.Format != "" || s.Field != "" || s.IDField != "") {
			return bad("format, field and id_field describe the labels file: give labels", "splits", i)
		}
	}
	models := map[string]bool{}
	for i := range c.Models {
		m := &c.Models[i]
		if err := uniqueName(models, m.Name, "model", "models", i); err != nil {
			return err
		}
		if m.Rules && len(m.Train) == 0 {
			return bad("rules: true needs the benchmark's training split under train", "models", i, "rules")
		}
		for k, list := range [][]audit.CorpusConfig{m.Train, m.TrainImages} {
			key := []string{"train", "train_images"}[k]
			names := map[string]bool{}
			for j := range list {
				t := &list[j]
				if t.Path == "" {
					return bad("a training corpus needs a path", "models", i, key, j)
				}
				if t.Name == "" {
					t.Name = filepath.Base(t.Path)
				}
				if names[t.Name] {
					return bad(fmt.Sprintf("a training corpus named %q is given twice", t.Name), "models", i, key, j)
				}
				names[t.Name] = true
				if k == 1 && (t.Format != "" || t.IDField != "") {
					return bad("format and id_field are not used for training images (detected; ids are file names)", "models", i, key, j)
				}
				if _, err := dataset.ParseFormat(t.Format); err != nil {
					return bad(err.Error(), "models", i, key, j, "format")
				}
			}
		}
		if len(m.Predictions) == 0 {
			return bad("a model needs predictions on at least one split", "models", i, "predictions")
		}
		on := map[string]bool{}
		for j, p := range m.Predictions {
			if !splits[p.Split] {
				return bad(fmt.Sprintf("split %q is not under splits", p.Split), "models", i, "predictions", j, "split")
			}
			if on[p.Split] {
				return bad(fmt.Sprintf("two prediction files for split %q", p.Split), "models", i, "predictions", j, "split")
			}
			on[p.Split] = true
			if p.Path == "" {
				return bad("predictions need a path", "models", i, "predictions", j)
			}
			if _, err := dataset.ParseFormat(p.Format); err != nil {
				return bad(err.Error(), "models", i, "predictions", j, "format")
			}
			if r := p.Reported; r != nil && (*r < 0 || *r > 100 || math.IsNaN(*r)) {
				return bad(fmt.Sprintf("%v: want a percentage from 0 to 100, such as 88.0", *r), "models", i, "predictions", j, "reported_exprate")
			}
		}
	}
	return nil
}

// uniqueName checks the name of entry i of the list under key, a what:
// given, and not given twice (seen holds the names before it).
func uniqueName(seen map[string]bool, name, what, key string, i int) error {
	if name == "" {
		return bad("a "+what+" needs a name", key, i)
	}
	if seen[name] {
		return bad(fmt.Sprintf("%s %q given twice", what, name), key, i, "name")
	}
	seen[name] = true
	return nil
}

// Path resolves a path of the configuration: relative to its folder.
func (c *Config) Path(p string) string {
	if p == "" || filepath.IsAbs(p) || c.dir == "" {
		return p
	}
	return filepath.Join(c.dir, p)
}

// InputPaths lists every file or folder the comparison reads, resolved
// (for the output checks).
func (c *Config) InputPaths() []string {
	var out []string
	add := func(p string) {
		if p != "" {
			out = append(out, c.Path(p))
		}
	}
	for _, s := range c.Splits {
		add(s.Labels)
		add(s.Images)
	}
	for _, m := range c.Models {
		for _, t := range append(append([]audit.CorpusConfig(nil), m.Train...), m.TrainImages...) {
			add(t.Path)
		}
		for _, p := range m.Predictions {
			add(p.Path)
			add(p.CDM)
		}
	}
	return out
}

// ExampleConfig is a commented comparison configuration with every key.
const ExampleConfig = `# leakaudit compare configuration. Paths are relative to this file.
# Unknown keys are errors. Run: leakaudit compare --config compare.yaml --out report/
name: HME100K test, TexTeller_en against TAMER    # the report's title

# The test splits. labels (optional) fixes the items and their ground
# truths: ids as in the predictions (an image extension such as .jpg is
# ignored); predictions without a ground truth take it from here, and every
# model is scored on it. Without labels, the items are those of the
# prediction files, with the first file's ground truth.
splits:
  - name: hme100k_test
    # labels: hme100k/test/caption.txt   # any reader format with ids
    # format: caption                    # optional, for labels: detected
    # field: label                       # optional: the label field
    # id_field: img_id                   # optional: the id field
    # images: hme100k/test               # optional: compared with each model's train_images

# The models. Each one's training data decides its "seen" items (label at a
# level below, near label with near, or image copy); items no model saw
# form the common clean subset. rules: true marks a model trained by the
# benchmark's rules (its own training split only, listed under train): the
# control of the excess gap.
models:
  - name: TexTeller_en
    reported_source: TexTeller technical report
    train:                               # any input the command line reads, or a fingerprint
      - {name: crohme_train, path: labels/crohme_train_captions.json}
      - {name: crohme2023_train, path: labels/crohme2023_train_captions.json}
      - {name: hme100k_train, path: labels/hme100k_train_captions.json}
    # train_images:                      # image folders, archives, Parquet, image fingerprints
    #   - {name: hme100k_train_images, path: hme100k/train}
    predictions:                         # one file per split, any reader format
      - split: hme100k_test
        path: texteller/hme100k_test.json
        reported_exprate: 90.7           # percent, as published (optional)
        # format: json-objects           # optional: detected
        # field: gt                      # optional: the ground-truth field
        # id_field: img_id               # optional: the id field
        # cdm: texteller-score/          # optional: a "leakaudit score --out" folder of these predictions, reused
  - name: TAMER
    rules: true
    train:
      - {name: hme100k_train, path: labels/hme100k_train_captions.json}
    predictions:
      - {split: hme100k_test, path: tamer/hme100k_test.json}

# levels: [audit, ws]              # canonical levels at which a label counts as seen
# near: 2                          # also seen: a training label within 2 token edits
# near_min: 12                     # shortest token sequence near matching considers (default 4(near+1))
# cdm_profile: unimernet           # unimernet (parity), omnidocbench or strict
# alpha: 0.05                      # significance level, strictly between 0 and 1
# max_label_bytes: 16384           # longer labels are skipped and counted, in every input
# db: /path/to/index               # index folder: a label index there covering the corpora is used (else they are
#                                  # read once, no index kept); training image hashes are stored there
`
