package retire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/cluster"
)

// TestReasonCodes checks the code each kind of verdict carries, and that a removal is unsafe
// exactly when its code is one of the unsafe ones.
func TestReasonCodes(t *testing.T) {
	deleted := apps
	cases := []struct {
		name  string
		units []Unit
		plan  bool
		want  Reason
		codes []Reason
	}{
		{"unprotected claim", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(nil)}}}, false, ReasonPrunePersistent, []Reason{ReasonPrunePersistent}},
		{"still mounted", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(nil), deployMounting("headlamp")}, Candidate: []*unstructured.Unstructured{deployMounting("headlamp")}}}, false,
			ReasonPrunePersistent, []Reason{ReasonPrunePersistent, ReasonClaimStillMounted}},
		{"retained, still mounted", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(disabled), deployMounting("headlamp")}, Candidate: []*unstructured.Unstructured{deployMounting("headlamp")}}}, false,
			ReasonRetained, []Reason{ReasonClaimStillMounted}},
		{"retained", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(disabled)}}}, false, ReasonRetained, nil},
		{"stateless", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{cm}}}, false, ReasonPruneStateless, nil},
		{"helm uninstall", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{helmRelease(t, "x", "persistence: {enabled: true}")}}}, false, ReasonHelmUninstallPersistent, []Reason{ReasonHelmUninstallPersistent}},
		{"moved unprotected", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(nil)}}, {Kustomization: infra, Candidate: []*unstructured.Unstructured{pvc(nil)}}}, false, ReasonMovePersistent, []Reason{ReasonMovePersistent}},
		{"moved protected", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(disabled)}}, {Kustomization: infra, Candidate: []*unstructured.Unstructured{pvc(nil)}}}, false, ReasonMoved, []Reason{ReasonMoved}},
		{"not managed", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(nil)}, Live: true}}, false, ReasonNotManaged, nil},
		{"kustomization deleted", []Unit{{Kustomization: deleted, Base: []*unstructured.Unstructured{pvc(nil)}, Removed: true}}, false, ReasonKustomizationDeletedPersistent, []Reason{ReasonKustomizationDeletedPersistent}},
		{"invalid name", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{obj("v1", "ConfigMap", "headlamp", "a;b", nil)}}}, true, ReasonInvalidObject, []Reason{ReasonInvalidObject}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := judge(t, tc.units)
			if len(rs) != 1 {
				t.Fatalf("removals = %+v, want 1", rs)
			}
			r := &rs[0]
			if tc.plan {
				Planner{Target: cluster.Target{Context: "prod"}}.Plan(r)
			}
			if r.Reason != tc.want || !slices.Equal(r.ReasonCodes, tc.codes) {
				t.Errorf("reason %q codes %q, want %q %q (reasons %q)", r.Reason, r.ReasonCodes, tc.want, tc.codes, r.Reasons)
			}
			if len(r.ReasonCodes) != len(r.Reasons) {
				t.Errorf("%d codes for %d reasons", len(r.ReasonCodes), len(r.Reasons))
			}
			if info, ok := LookupReason(r.Reason); !ok || info.Unsafe != r.Unsafe {
				t.Errorf("reason %q (known %v, unsafe %v) on a removal with unsafe %v", r.Reason, ok, info.Unsafe, r.Unsafe)
			}
		})
	}
}

func TestWedgeReason(t *testing.T) {
	r := Removal{Object: Ref{Kind: "ConfigMap", Namespace: "a", Name: "b"}, Outcome: Pruned,
		Live: &Live{Exists: true, Terminating: true, Finalizers: []string{"example.com/hold"}}}
	AssessWedge(&r, apps, nil)
	if r.Reason != ReasonPruneWedge || !r.Unsafe {
		t.Errorf("reason %q unsafe %v, want %q and unsafe", r.Reason, r.Unsafe, ReasonPruneWedge)
	}
}

// TestReasonTable fails when a code is emitted that the table in docs/safe-retire.md lacks, or
// the table lists a code the tool does not have.
func TestReasonTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/safe-retire.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\| (unsafe|safe) \\|")
	documented := map[Reason]string{}
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		documented[Reason(m[1])] = m[2]
	}
	for _, info := range Reasons() {
		want := "safe"
		if info.Unsafe {
			want = "unsafe"
		}
		if got, ok := documented[info.Code]; !ok || got != want {
			t.Errorf("docs/safe-retire.md: code %q is listed as %q, want a row `| `%s` | %s |`", info.Code, got, info.Code, want)
		}
		delete(documented, info.Code)
	}
	for code := range documented {
		t.Errorf("docs/safe-retire.md lists %q, which no removal carries", code)
	}
}

// TestEveryReasonListed fails when a Reason constant of the package is missing from Reasons(),
// so a code can never be emitted without its row in the table TestReasonTable checks.
func TestEveryReasonListed(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, info := range Reasons() {
		listed[string(info.Code)] = true
	}
	found := 0
	for _, f := range pkgs["retire"].Files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Reason" {
					continue
				}
				for _, val := range v.Values {
					lit, ok := val.(*ast.BasicLit)
					if !ok {
						t.Errorf("%s: a Reason constant that is not a literal", fset.Position(val.Pos()))
						continue
					}
					found++
					if code, _ := strconv.Unquote(lit.Value); !listed[code] {
						t.Errorf("%s: Reason %s is not in Reasons()", fset.Position(lit.Pos()), lit.Value)
					}
				}
			}
		}
	}
	if found != len(Reasons()) {
		t.Errorf("%d Reason constants, %d in Reasons()", found, len(Reasons()))
	}
}
