package flux

// EntryNote is the Notes key of the lines that name no Kustomization (a repository's entry path).
const EntryNote = ""

// Mark is how strongly a graph drawing outlines a Kustomization.
type Mark int

// The marks, weakest first.
const (
	MarkNone Mark = iota
	MarkWarning
	MarkError
)

// Notes are what a graph drawing adds to the chain: per Kustomization id, lines under its name
// (EntryNote for a note of their own) and the mark to outline it with. The zero value adds
// nothing; root causes are always outlined as MarkError.
type Notes struct {
	Lines map[string][]string
	Marks map[string]Mark
}

// mark is the outline of Kustomization id: MarkError for a root cause, else its note's mark.
func (n Notes) mark(roots map[string]bool, id string) Mark {
	if roots[id] {
		return MarkError
	}
	return n.Marks[id]
}

// rootSet is the set of the chain's failing Kustomizations: each root cause's, and the tiers
// that fail directly on an object that is a root cause.
func (c *Chain) rootSet() map[string]bool {
	roots := map[string]bool{}
	for _, rc := range c.RootCauses {
		roots[rc.Kustomization] = rc.Kustomization != ""
		for _, id := range rc.Tiers {
			roots[id] = true
		}
	}
	return roots
}
