package dedup

import (
	"sort"

	"github.com/leakaudit/leakaudit/index"
)

// nearMin is the shortest token sequence near matching considers
// (default index.DefaultNearMin: shorter formulas are within a few edits
// of each other by chance).
func (job *Job) nearMin() int {
	if job.NearMin > 0 {
		return job.NearMin
	}
	return index.DefaultNearMin(job.Near)
}

// nearSet finds the against items within k token edits of a sequence: an
// index.Near over the against items' token sequences, with their owners.
type nearSet struct {
	ix     *index.Near
	owners []entry    // by index id
	seqs   [][]string // by index id, for the control rate
}

func newNearSet(k, minTokens int) *nearSet { return &nearSet{ix: index.NewNear(k, minTokens)} }

func (n *nearSet) add(tokens []string, e entry) {
	if id := n.ix.Add(tokens); id >= 0 {
		n.owners = append(n.owners, e)
		n.seqs = append(n.seqs, tokens)
	}
}

// query returns the names of the nearest against items (not from source
// skip) within k edits, sorted, and their distance.
func (n *nearSet) query(tokens []string, skip int32) ([]string, int) {
	best := -1
	var names []string
	for _, m := range n.ix.Query(tokens) {
		o := n.owners[m.ID]
		if o.src == skip {
			continue
		}
		if best >= 0 && m.Distance > best {
			break // matches come nearest first
		}
		best = m.Distance
		names = append(names, o.name)
	}
	sortNames(names)
	return names, best
}

func sortNames(names []string) { sort.Strings(names) }

// NearSelf is how dense the against set's own formulas are at the
// distance: how many against items (of the length near matching considers)
// have another against item within it that is not identical at the tokens
// level. It measures shared templates inside a benchmark, not chance: a
// chance level needs a control set that cannot be in the data (overlap
// --near-control).
type NearSelf struct {
	Items   int     `json:"items"`
	Matched int     `json:"matched"`
	Rate    float64 `json:"rate"`
}

// self computes the rate over the indexed against items.
func (n *nearSet) self() NearSelf {
	c := NearSelf{Items: len(n.seqs)}
	for id, t := range n.seqs {
		for _, m := range n.ix.Query(t) {
			if m.ID != id && m.Distance > 0 {
				c.Matched++
				break
			}
		}
	}
	if c.Items > 0 {
		c.Rate = float64(c.Matched) / float64(c.Items)
	}
	return c
}
