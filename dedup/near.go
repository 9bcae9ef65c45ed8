package dedup

import (
	"sort"

	"github.com/leakaudit/leakaudit/index"
)

// DefaultNearMin is the shortest token sequence near matching considers:
// shorter formulas are within a few edits of each other by chance.
const DefaultNearMin = 8

func (job *Job) nearMin() int {
	if job.NearMin > 0 {
		return job.NearMin
	}
	return DefaultNearMin
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

// NearControl is the chance level of near matches: how many against items
// (of the length near matching considers) have another against item within
// the distance that is not identical at the tokens level. Unrelated
// formulas of one benchmark collide at this rate; a release's near
// matches far above it are copies with edits, near it are chance.
type NearControl struct {
	Items   int     `json:"items"`
	Matched int     `json:"matched"`
	Rate    float64 `json:"rate"`
}

// control computes the rate over the indexed against items.
func (n *nearSet) control() NearControl {
	c := NearControl{Items: len(n.seqs)}
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
