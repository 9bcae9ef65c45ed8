package audit

// InputPaths lists every file or folder the configuration reads, resolved
// as the audit resolves them (relative to the configuration file): the
// splits' predictions, labels and images, the training corpora and
// images, and the corrections file. An output must be none of them.
func (c *Config) InputPaths() []string {
	var out []string
	add := func(p string) {
		if p != "" {
			out = append(out, c.Path(p))
		}
	}
	for _, s := range c.Splits {
		add(s.Predictions)
		add(s.Labels)
		add(s.Images)
	}
	for _, list := range [][]CorpusConfig{c.Train, c.TrainImages} {
		for _, t := range list {
			add(t.Path)
		}
	}
	add(c.Corrections)
	return out
}
