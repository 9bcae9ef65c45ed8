package dedup

import "sort"

// DefaultNearMin is the shortest token sequence near matching considers:
// shorter formulas are within a few edits of each other by chance.
const DefaultNearMin = 8

func (job *Job) nearMin() int {
	if job.NearMin > 0 {
		return job.NearMin
	}
	return DefaultNearMin
}

// nearSet finds the against items within k token edits of a sequence.
type nearSet struct {
	k, min int
	seqs   [][]string
	owners []entry
}

func newNearSet(k, minTokens int) *nearSet { return &nearSet{k: k, min: minTokens} }

func (n *nearSet) add(tokens []string, e entry) {
	if len(tokens) < n.min {
		return
	}
	n.seqs = append(n.seqs, tokens)
	n.owners = append(n.owners, e)
}

// query returns the names of the nearest against items (not from source
// skip) within k edits, and their distance.
func (n *nearSet) query(tokens []string, skip int32) ([]string, int) {
	if len(tokens) < n.min {
		return nil, 0
	}
	best := n.k + 1
	var names []string
	for i, s := range n.seqs {
		if n.owners[i].src == skip {
			continue
		}
		d := editDistance(tokens, s, best)
		switch {
		case d < best:
			best, names = d, []string{n.owners[i].name}
		case d == best && d <= n.k:
			names = append(names, n.owners[i].name)
		}
	}
	if best > n.k {
		return nil, 0
	}
	sortNames(names)
	return names, best
}

// editDistance is the token Levenshtein distance of a and b, or any value
// ≥ limit when it is at least limit.
func editDistance(a, b []string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1)
			cur[j] = c
			low = min(low, c)
		}
		if low >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func sortNames(names []string) { sort.Strings(names) }
