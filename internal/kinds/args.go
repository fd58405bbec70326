package kinds

import (
	"strings"

	"github.com/fluxcd/cli-utils/pkg/object"

	"github.com/kubeforensics/suite/internal/exitcode"
)

// ObjectArg is a parsed object argument: a type as typed (resolved later against a Catalog)
// and an optional name, or — for a Flux inventory id — the group, kind and namespace it encodes.
type ObjectArg struct {
	Type      string
	Name      string
	Namespace string
	// Group and Kind are set, and Type empty, when the argument was a Flux inventory id.
	Group, Kind   string
	FromInventory bool
}

// ParseObjectArgs accepts what kubectl accepts — `TYPE`, `TYPE NAME`, `TYPE/NAME` — and a Flux
// inventory id (`headlamp_headlamp__PersistentVolumeClaim`), whose namespace, group and kind
// are decoded with Flux's own parser.
func ParseObjectArgs(args []string) (ObjectArg, error) {
	switch len(args) {
	case 1:
		a := args[0]
		if strings.Contains(a, "_") {
			return ParseInventoryID(a)
		}
		typ, name, hasSlash := strings.Cut(a, "/")
		if typ == "" || (hasSlash && (name == "" || strings.Contains(name, "/"))) {
			return ObjectArg{}, exitcode.UsageErrorf("%q is not TYPE, TYPE/NAME or a Flux inventory id", a)
		}
		return ObjectArg{Type: typ, Name: name}, nil
	case 2:
		if strings.Contains(args[0], "/") || strings.Contains(args[1], "/") {
			return ObjectArg{}, exitcode.UsageErrorf("give either TYPE NAME or TYPE/NAME, not %q %q", args[0], args[1])
		}
		if args[0] == "" || args[1] == "" {
			return ObjectArg{}, exitcode.UsageErrorf("TYPE and NAME must not be empty")
		}
		return ObjectArg{Type: args[0], Name: args[1]}, nil
	}
	return ObjectArg{}, exitcode.UsageErrorf("expected TYPE NAME, TYPE/NAME or an inventory id, got %d arguments", len(args))
}

// ParseInventoryID decodes a Flux inventory id, `<namespace>_<name>_<group>_<kind>`, in which
// kustomize-controller encodes `:` in names (RBAC objects) as `__`.
func ParseInventoryID(id string) (ObjectArg, error) {
	m, err := object.ParseObjMetadata(id)
	if err != nil {
		return ObjectArg{}, exitcode.UsageErrorf("%q is not a Flux inventory id (<namespace>_<name>_<group>_<kind>): %w", id, err)
	}
	if m.Name == "" || m.GroupKind.Kind == "" {
		return ObjectArg{}, exitcode.UsageErrorf("Flux inventory id %q has an empty name or kind", id)
	}
	return ObjectArg{Name: m.Name, Namespace: m.Namespace, Group: m.GroupKind.Group, Kind: m.GroupKind.Kind, FromInventory: true}, nil
}
