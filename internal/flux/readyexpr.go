package flux

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/cel"
	celtypes "github.com/google/cel-go/common/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/report"
)

// ReadyExpr is one dependsOn entry's readyExpr (Flux 2.7+) and what it evaluates to on the
// objects as they are now. kustomize-controller (for a Kustomization on a Kustomization) and
// helm-controller (for a HelmRelease on a HelmRelease) evaluate it in place of their built-in
// readiness check on the dependency (unless their AdditiveCELDependencyCheck feature gate adds
// it to the check), with the dependent as `self` and the dependency as `dep`.
type ReadyExpr struct {
	// Dependency is the dependency's namespace/name.
	Dependency string `json:"dependency"`
	Expr       string `json:"expr"`
	// Ready is the expression's value; nil when it could not be evaluated (Error says why).
	Ready *bool  `json:"ready,omitempty"`
	Error string `json:"error,omitempty"`
	// Values are the fields of self and dep the expression reads, as the evaluation saw them.
	Values []ExprValue `json:"values,omitempty"`
}

// ExprValue is one field an expression reads and its value, JSON-encoded ("<absent>" when the
// object has no such field).
type ExprValue struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

// The names kustomize-controller gives the two objects in a readyExpr.
const (
	exprSelf = "self"
	exprDep  = "dep"
	// exprTimeout bounds one evaluation: a CEL program is interrupted when its context ends.
	exprTimeout = 2 * time.Second
	// maxExprValue bounds a value shown from an expression (a list of conditions can be long).
	maxExprValue = 200
)

// exprPathRe finds the field paths of self and dep an expression reads: `dep.status.x`,
// `self.metadata.labels['app/version']`. A segment followed by "(" is a method, not a field.
var exprPathRe = regexp.MustCompile(`\b(?:self|dep)(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\s*(?:'[^']*'|"[^"]*")\s*\])+(\()?`)

// dependent is a Flux object whose dependsOn entries can carry a readyExpr, and whose
// dependencies are objects of its own kind: a Kustomization or a HelmRelease.
type dependent interface {
	runtime.Object
	metav1.Object
}

// evalReadyExprs evaluates the readyExpr of every entry of refs, the dependsOn of self, whose
// dependency is in byID, as kustomize-controller and helm-controller do: the same CEL library
// (fluxcd/pkg/runtime/cel), the same options (compiled, boolean output, self and dep declared
// as structs) and the objects converted to maps the same way. A dependency that is not in
// byID cannot be evaluated: it is left out when absent is "" (a missing Kustomization is a
// finding of its own), else kept with absent as its error.
func evalReadyExprs[T dependent](self T, refs []meta.DependencyReference, byID map[string]T, absent string) []ReadyExpr {
	var out []ReadyExpr
	for _, ref := range refs {
		if ref.ReadyExpr == "" {
			continue
		}
		ns := ref.Namespace
		if ns == "" {
			ns = self.GetNamespace()
		}
		re := ReadyExpr{Dependency: ns + "/" + ref.Name, Expr: ref.ReadyExpr}
		if dep, ok := byID[re.Dependency]; ok {
			re.evaluate(self, dep)
			out = append(out, re)
		} else if absent != "" {
			re.Error = absent
			out = append(out, re)
		}
	}
	return out
}

// evaluate sets Ready or Error, and Values.
func (re *ReadyExpr) evaluate(self, dep dependent) {
	vars, err := exprVars(self, dep)
	if err != nil {
		re.Error = err.Error()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), exprTimeout)
	defer cancel()
	expr, err := cel.NewExpression(re.Expr, cel.WithCompile(), cel.WithOutputType(celtypes.BoolType),
		cel.WithStructVariables(exprSelf, exprDep))
	if err == nil {
		var ready bool
		if ready, err = expr.EvaluateBoolean(ctx, vars); err == nil {
			re.Ready = &ready
		}
	}
	if err != nil {
		re.Error = oneLine(err.Error())
	}
	re.Values = exprValues(ctx, re.Expr, vars)
}

// exprVars converts both objects to maps, as the controllers do before evaluating. Both read
// the dependency through their uncached API reader, whose decoder clears apiVersion and kind,
// and the dependent from their cache, which sets them: dep is converted without them so an
// expression reading dep.kind fails here as it fails there.
func exprVars(self, dep dependent) (map[string]any, error) {
	s, err := runtime.DefaultUnstructuredConverter.ToUnstructured(self)
	if err != nil {
		return nil, fmt.Errorf("converting %s to a map: %w", exprSelf, err)
	}
	depCopy := dep.DeepCopyObject()
	depCopy.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	d, err := runtime.DefaultUnstructuredConverter.ToUnstructured(depCopy)
	if err != nil {
		return nil, fmt.Errorf("converting %s to a map: %w", exprDep, err)
	}
	return map[string]any{exprSelf: s, exprDep: d}, nil
}

// exprValues evaluates each field path the expression reads on its own, so a false expression
// can say what it compared.
func exprValues(ctx context.Context, expr string, vars map[string]any) []ExprValue {
	var out []ExprValue
	seen := map[string]bool{}
	for _, m := range exprPathRe.FindAllStringSubmatchIndex(expr, -1) {
		path := expr[m[0]:m[1]]
		if m[2] >= 0 { // a method call: the path is its receiver
			path = path[:len(path)-1]
			if i := lastSegment(path); i > 0 {
				path = path[:i]
			}
		}
		if seen[path] || path == exprSelf || path == exprDep {
			continue
		}
		seen[path] = true
		out = append(out, ExprValue{Path: path, Value: exprValue(ctx, path, vars)})
	}
	return out
}

// lastSegment is where the last `.field` of a path starts.
func lastSegment(path string) int {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '.' {
			return i
		}
	}
	return -1
}

// exprValue is one path's value, JSON-encoded and bounded.
func exprValue(ctx context.Context, path string, vars map[string]any) string {
	e, err := cel.NewExpression(path, cel.WithCompile(), cel.WithStructVariables(exprSelf, exprDep))
	if err != nil {
		return "<" + oneLine(err.Error()) + ">"
	}
	v, err := e.Evaluate(ctx, vars)
	if err != nil {
		return "<absent>"
	}
	b, err := json.Marshal(v)
	s := string(b)
	if err != nil {
		s = fmt.Sprint(v)
	}
	if len(s) > maxExprValue {
		s = strings.ToValidUTF8(s[:maxExprValue], "") + "…"
	}
	return s
}

// oneLine folds CEL's multi-line diagnostics (the expression, a caret under the error) into
// one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// readyExpr is n's readyExpr on dependency dep, or nil.
func (n *Node) readyExpr(dep string) *ReadyExpr {
	i := slices.IndexFunc(n.ReadyExprs, func(r ReadyExpr) bool { return r.Dependency == dep })
	if i < 0 {
		return nil
	}
	return &n.ReadyExprs[i]
}

// describe renders the values an expression saw, for a root cause's explanation.
func (re *ReadyExpr) describe() string {
	s := ""
	for i, v := range re.Values {
		if i > 0 {
			s += ", "
		}
		s += v.Path + " = " + v.Value
	}
	if s == "" {
		return "it reads no field of self or dep"
	}
	return "it saw " + s
}

// unevaluated are the readyExprs of waiting tiers, and of the waiting HelmReleases they apply,
// that could not be evaluated, and the HelmReleases a cause waits on that could not be read: the
// chain cannot tell whether they hold, so the result is UNKNOWN.
func unevaluated(nodes []*Node, causes []RootCause) []report.Gap {
	var gaps []report.Gap
	add := func(of string, exprs []ReadyExpr) {
		for _, re := range exprs {
			if re.Ready == nil {
				gaps = append(gaps, report.Gap{Op: report.OpEvaluate, Reason: report.GapFailed, What: fmt.Sprintf("evaluating readyExpr %q of %s on %s", oneLine(re.Expr), of, re.Dependency), Error: re.Error})
			}
		}
	}
	for _, n := range nodes {
		if n.State == Waiting {
			add(kustomizationRef(n.ID), n.ReadyExprs)
		}
		for _, hr := range n.HelmReleases {
			add(helmReleaseRef(hr.Namespace, hr.Name), hr.ReadyExprs)
		}
	}
	for _, rc := range causes {
		gaps = append(gaps, rc.unread...)
	}
	return gaps
}
