package kinds

import (
	"sort"
	"strings"
)

// closest returns up to n qualified resource names whose spellings are nearest to in: a shared
// prefix or an edit distance of at most a third of the input's length.
func (c *Catalog) closest(in string, n int) []string {
	head, _, _ := strings.Cut(in, ".")
	type scored struct {
		name string
		d    int
	}
	best := map[string]int{}
	for _, r := range c.Preferred() {
		for _, name := range r.names() {
			d := editDistance(head, name)
			if strings.HasPrefix(name, head) || strings.HasPrefix(head, name) {
				d = min(d, 1)
			}
			if d > max(1, len(head)/3) {
				continue
			}
			q := r.QualifiedName()
			if old, ok := best[q]; !ok || d < old {
				best[q] = d
			}
		}
	}
	var all []scored
	for name, d := range best {
		all = append(all, scored{name, d})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].d != all[j].d {
			return all[i].d < all[j].d
		}
		return all[i].name < all[j].name
	})
	var out []string
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, all[i].name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
