package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// The `${{ }}` expressions of workflow_test.go's runner: context paths, string literals, ==
// and != (case-insensitive, as on GitHub), &&, || (each returning an operand, as on GitHub), !
// and parentheses. Anything else fails the test.

// expand replaces every ${{ expression }} in s.
func (r *runner) expand(s string, ctx map[string]any) string {
	return regexp.MustCompile(`\$\{\{(.*?)\}\}`).ReplaceAllStringFunc(s, func(m string) string {
		return str(r.eval(m[3:len(m)-2], ctx))
	})
}

// eval evaluates one expression of the subset this file supports.
func (r *runner) eval(expr string, ctx map[string]any) any {
	toks := regexp.MustCompile(`\s*('(?:[^']|'')*'|==|!=|&&|\|\||!|\(|\)|[A-Za-z_][A-Za-z0-9_.-]*)`).FindAllStringSubmatch(expr, -1)
	var joined strings.Builder
	var list []string
	for _, tk := range toks {
		joined.WriteString(tk[0])
		list = append(list, tk[1])
	}
	if strings.TrimSpace(joined.String()) != strings.TrimSpace(expr) {
		r.t.Fatalf("expression %q is outside what this test evaluates", expr)
	}
	p := &parser{t: r.t, toks: list, ctx: ctx, expr: expr}
	v := p.or()
	if p.i != len(p.toks) {
		r.t.Fatalf("expression %q: unexpected %q", expr, p.toks[p.i])
	}
	return v
}

type parser struct {
	t    *testing.T
	toks []string
	i    int
	ctx  map[string]any
	expr string
}

func (p *parser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *parser) or() any {
	v := p.and()
	for p.peek() == "||" {
		p.i++
		w := p.and()
		if !truthy(v) {
			v = w
		}
	}
	return v
}

func (p *parser) and() any {
	v := p.cmp()
	for p.peek() == "&&" {
		p.i++
		w := p.cmp()
		if truthy(v) {
			v = w
		}
	}
	return v
}

func (p *parser) cmp() any {
	v := p.unary()
	if op := p.peek(); op == "==" || op == "!=" {
		p.i++
		eq := strings.EqualFold(str(v), str(p.unary()))
		return eq == (op == "==")
	}
	return v
}

func (p *parser) unary() any {
	switch tk := p.peek(); {
	case tk == "!":
		p.i++
		return !truthy(p.unary())
	case tk == "(":
		p.i++
		v := p.or()
		if p.peek() != ")" {
			p.t.Fatalf("expression %q: missing )", p.expr)
		}
		p.i++
		return v
	case strings.HasPrefix(tk, "'"):
		p.i++
		return strings.ReplaceAll(tk[1:len(tk)-1], "''", "'")
	case tk != "":
		p.i++
		return lookup(p.ctx, strings.Split(tk, "."))
	}
	p.t.Fatalf("expression %q ends early", p.expr)
	return nil
}

// lookup walks a context path; a missing key is "" (null), as on GitHub.
func lookup(v any, path []string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		if v, ok = m[k]; !ok || v == nil {
			return ""
		}
	}
	return v
}

func truthy(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case string:
		return v != ""
	}
	return v != nil
}

func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case bool, float64:
		return fmt.Sprint(v)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
