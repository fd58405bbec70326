package report

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Reason is a stable kebab-case code a finding carries beside its text, for a CI gate, a SARIF
// rule or a script to match on: `pvc-protection-pod`, `webhook-rejects-delete`. A code is a
// constant of the domain package that emits it and a row of the table in docs/report.md; it
// is never renamed or removed within an apiVersion.
type Reason string

// kebab is the shape of a code: lower-case words joined by single hyphens.
var kebab = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Valid reports whether r is kebab-case.
func (r Reason) Valid() bool { return kebab.MatchString(string(r)) }

// DocumentedReason is one row of the reason table in docs/report.md.
type DocumentedReason struct {
	// Source is the package whose findings carry the code (finalizers, flux).
	Source string
	// Where is what carries it: blocker, finalizer, remediation, cause.
	Where string
	// Meaning is the row's one line.
	Meaning string
}

// row is a table row of the reason table: | `code` | source | where | meaning |.
var row = regexp.MustCompile("^\\|\\s*`([^`]+)`\\s*\\|\\s*([^|]+?)\\s*\\|\\s*([^|]+?)\\s*\\|\\s*(.+?)\\s*\\|\\s*$")

// Documented reads the reason table from Markdown: every row whose first cell is a code in
// backticks and that has four cells. A code listed twice is an error.
func Documented(markdown []byte) (map[Reason]DocumentedReason, error) {
	out := map[Reason]DocumentedReason{}
	sc := bufio.NewScanner(bytes.NewReader(markdown))
	for sc.Scan() {
		m := row.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		code := Reason(m[1])
		if _, dup := out[code]; dup {
			return nil, fmt.Errorf("reason %s is documented twice", code)
		}
		out[code] = DocumentedReason{Source: m[2], Where: m[3], Meaning: m[4]}
	}
	return out, sc.Err()
}

// Declared lists the Reason constants a package's Go files (tests excluded) declare, by
// reading the source in dir: a code a file emits is one of these, whether or not a list of
// them was kept up to date by hand. Constants must be typed report.Reason and have a string
// literal value.
func Declared(dir string) ([]Reason, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var out []Reason
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			out = append(out, reasonConsts(d)...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// reasonConsts returns the values of the constants of type report.Reason that d declares.
func reasonConsts(d ast.Decl) []Reason {
	g, ok := d.(*ast.GenDecl)
	if !ok || g.Tok != token.CONST {
		return nil
	}
	var out []Reason
	for _, s := range g.Specs {
		v := s.(*ast.ValueSpec)
		sel, ok := v.Type.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Reason" {
			continue
		}
		for _, val := range v.Values {
			if lit, ok := val.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					out = append(out, Reason(s))
				}
			}
		}
	}
	return out
}
