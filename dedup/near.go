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
	owners []entry // by index id
}

func newNearSet(k, minTokens int) *nearSet { return &nearSet{ix: index.NewNear(k, minTokens)} }

func (n *nearSet) add(tokens []string, e entry) {
	if id := n.ix.Add(tokens); id >= 0 {
		n.owners = append(n.owners, e)
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
