package cdm

import (
	"math"
	"slices"
)

// assign solves the rectangular linear sum assignment problem for an
// n×m cost matrix (row-major): it returns min(n, m) pairs (row, col)
// with the least total cost, sorted by row. Its working arrays come from
// sc.
//
// The method is the shortest augmenting path algorithm with dual
// variables (Jonker–Volgenant style, as described by Crouse, "On
// implementing 2D rectangular assignment algorithms", 2016), which is
// also what scipy.optimize.linear_sum_assignment runs; following the same
// search order and tie rule (prefer an unassigned column among equally
// short paths) makes the chosen assignment the same when several are
// optimal.
func assign(cost []float64, n, m int, sc *scoreScratch) [][2]int {
	if n == 0 || m == 0 {
		return nil
	}
	transpose := m < n
	nr, nc := n, m
	c := cost
	if transpose {
		nr, nc = m, n
		c = sc.floats.take(n * m)
		for i := range n {
			for j := range m {
				c[j*n+i] = cost[i*m+j]
			}
		}
	}
	u := sc.floats.take(nr)
	v := sc.floats.take(nc)
	spc := sc.floats.take(nc)
	path := sc.ints.take(nc)
	col4row := sc.ints.take(nr)
	row4col := sc.ints.take(nc)
	sr := sc.bools.take(nr)
	seen := sc.bools.take(nc)
	remaining := sc.ints.take(nc)
	for i := range col4row {
		col4row[i] = -1
	}
	for j := range row4col {
		row4col[j] = -1
		path[j] = -1
	}
	for cur := range nr {
		// Find the shortest augmenting path from row cur.
		minVal := 0.0
		num := nc
		for it := range nc {
			remaining[it] = nc - it - 1
		}
		clear(sr)
		clear(seen)
		for j := range spc {
			spc[j] = math.Inf(1)
		}
		sink := -1
		i := cur
		for sink == -1 {
			index := -1
			lowest := math.Inf(1)
			sr[i] = true
			ci, ui := c[i*nc:i*nc+nc], u[i] // row i, read once
			for it, j := range remaining[:num] {
				r := minVal + ci[j] - ui - v[j]
				s := spc[j]
				if r < s {
					path[j] = i
					spc[j], s = r, r
				}
				if s < lowest || s == lowest && row4col[j] == -1 {
					lowest = s
					index = it
				}
			}
			minVal = lowest
			if math.IsInf(minVal, 1) || index < 0 {
				return nil // infeasible: cannot happen with finite costs
			}
			j := remaining[index]
			if row4col[j] == -1 {
				sink = j
			} else {
				i = row4col[j]
			}
			seen[j] = true
			num--
			remaining[index] = remaining[num]
		}
		// Update the duals.
		u[cur] += minVal
		for i := range nr {
			if sr[i] && i != cur {
				u[i] += minVal - spc[col4row[i]]
			}
		}
		for j := range nc {
			if seen[j] {
				v[j] -= minVal - spc[j]
			}
		}
		// Augment along the path.
		for j := sink; ; {
			i := path[j]
			row4col[j] = i
			col4row[i], j = j, col4row[i]
			if i == cur {
				break
			}
		}
	}
	pairs := make([][2]int, 0, nr)
	for i := range nr {
		if transpose {
			pairs = append(pairs, [2]int{col4row[i], i})
		} else {
			pairs = append(pairs, [2]int{i, col4row[i]})
		}
	}
	slices.SortFunc(pairs, func(a, b [2]int) int { return a[0] - b[0] })
	return pairs
}
