package kinds

import (
	"strings"
	"testing"
)

// FuzzParseObjectArgs checks the argument parser never panics and that whatever it accepts
// is well formed: a type or an inventory kind, and no slash left in the name.
func FuzzParseObjectArgs(f *testing.F) {
	for _, s := range []string{"pvc/headlamp", "headlamp_headlamp__PersistentVolumeClaim", "a_b_c", "__", "x/y/z", "_"} {
		f.Add(s, "")
	}
	f.Add("pvc", "headlamp")
	f.Fuzz(func(t *testing.T, a, b string) {
		args := []string{a}
		if b != "" {
			args = append(args, b)
		}
		got, err := ParseObjectArgs(args)
		if err != nil {
			return
		}
		if got.Type == "" && got.Kind == "" {
			t.Fatalf("accepted %q without a type or kind", args)
		}
		if strings.Contains(got.Name, "/") || strings.Contains(got.Type, "/") {
			t.Fatalf("accepted %q leaving a slash: %+v", args, got)
		}
	})
}

// FuzzResolve checks the resolver never panics and never returns a resource without an error
// that does not answer to the input's first segment.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"pvc", "Backup.v1.velero.io", "backups", "pods.", ".velero.io", "backup.", "x.y.z"} {
		f.Add(s)
	}
	c := testCatalog()
	f.Fuzz(func(t *testing.T, in string) {
		res, err := c.Resolve(in)
		if err != nil {
			return
		}
		head, _, _ := strings.Cut(strings.TrimSpace(in), ".")
		if !matchesName(res.Resource, strings.ToLower(head)) {
			t.Fatalf("Resolve(%q) = %s, which does not answer to %q", in, res.Resource.QualifiedName(), head)
		}
	})
}
