package lint

import (
	"slices"
	"testing"

	"github.com/kubeforensics/suite/internal/flux"
)

func TestGraphNotes(t *testing.T) {
	fs := []Finding{
		{Rule: "timeout-under-helmrelease", Severity: Warning, Kustomization: "flux-system/apps"},
		{Rule: "crd-order", Severity: Error, Kustomization: "flux-system/apps"},
		{Rule: "crd-order", Severity: Error, Kustomization: "flux-system/apps"},
		{Rule: "suspend-committed", Severity: Warning, Kustomizations: []string{"flux-system/apps", "flux-system/infra"}},
		{Rule: "remote-base", Severity: Info},
	}
	n := GraphNotes(fs)
	cases := []struct {
		name  string
		id    string
		lines []string
		mark  flux.Mark
	}{
		{"most severe first, counted", "flux-system/apps", []string{"ERROR crd-order ×2", "WARNING suspend-committed", "WARNING timeout-under-helmrelease"}, flux.MarkError},
		{"a shared finding on each tier", "flux-system/infra", []string{"WARNING suspend-committed"}, flux.MarkWarning},
		{"the entry path's own note, info unmarked", flux.EntryNote, []string{"INFO remote-base"}, flux.MarkNone},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !slices.Equal(n.Lines[c.id], c.lines) {
				t.Errorf("lines %q, want %q", n.Lines[c.id], c.lines)
			}
			if n.Marks[c.id] != c.mark {
				t.Errorf("mark %d, want %d", n.Marks[c.id], c.mark)
			}
		})
	}
}
