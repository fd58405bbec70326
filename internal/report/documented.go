package report

import (
	"fmt"
	"os"
	"sort"
)

// CheckDocumented compares the reason codes a package declares (Declared, read from its
// source in dir) with the rows of the reason table in the Markdown file doc whose source column
// is source. It returns one line per disagreement: a code declared but not documented (or
// documented for another source), a code documented but no longer declared (renamed or
// removed), and a code that is not kebab-case.
func CheckDocumented(dir, doc, source string) ([]string, error) {
	declared, err := Declared(dir)
	if err != nil {
		return nil, err
	}
	md, err := os.ReadFile(doc)
	if err != nil {
		return nil, err
	}
	documented, err := Documented(md)
	if err != nil {
		return nil, err
	}
	var problems []string
	seen := map[Reason]bool{}
	for _, r := range declared {
		if seen[r] {
			problems = append(problems, fmt.Sprintf("%s is declared twice", r))
		}
		seen[r] = true
		if !r.Valid() {
			problems = append(problems, fmt.Sprintf("%s is not kebab-case", r))
		}
		d, ok := documented[r]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s is emitted but %s's reason table lacks it", r, doc))
		case d.Source != source:
			problems = append(problems, fmt.Sprintf("%s is documented for %s, not %s", r, d.Source, source))
		}
	}
	for r, d := range documented {
		if d.Source == source && !seen[r] {
			problems = append(problems, fmt.Sprintf("%s is documented but no longer declared: a code is never renamed or removed within an apiVersion", r))
		}
	}
	sort.Strings(problems)
	return problems, nil
}
