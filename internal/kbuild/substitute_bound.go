package kbuild

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/fluxcd/pkg/kustomize"
	"sigs.k8s.io/kustomize/api/resource"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// Bounds on what postBuild substitution may add to the built objects: a 1 MiB value referenced
// 4,000 times in a 24 KB manifest would otherwise ask for 4 GiB, several times over as the
// controller's code turns each object into YAML, substitutes and decodes it again. Real
// repositories add kilobytes (cluster names, domains, a CA bundle in a few objects).
const (
	// MaxSubstitutionPerTier bounds the bytes substitution may add to one tier's objects.
	MaxSubstitutionPerTier = 16 << 20
	// DefaultSubstitutionBudget bounds the bytes it may add to all the tiers of one run.
	DefaultSubstitutionBudget = 128 << 20
)

// SubstitutionBudget is what substitution may still add to the objects of one run's builds,
// shared by every build run with the context carrying it (WithSubstitutionBudget).
type SubstitutionBudget struct {
	mu          sync.Mutex
	total, left int64
}

type budgetKey struct{}

// WithSubstitutionBudget returns ctx carrying a budget of total bytes that the postBuild
// substitution of all builds run with it may add together; past it, a tier fails naming it.
func WithSubstitutionBudget(ctx context.Context, total int64) context.Context {
	return context.WithValue(ctx, budgetKey{}, &SubstitutionBudget{total: total, left: total})
}

// take reserves n bytes, or says why it cannot.
func (b *SubstitutionBudget) take(n int64) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.left {
		return fmt.Errorf("postBuild substitution would add %s to this tier's objects, but only %s of the run's %s for all tiers is left", size(n), size(b.left), size(b.total))
	}
	b.left -= n
	return nil
}

// growth is a bound on the bytes one reference adds.
type growth struct {
	bytes  int64
	varRef string // the reference that adds the most
	refs   int    // how often it occurs
	object string
}

// bound checks, before anything is substituted, that the tier's substitution stays within
// MaxSubstitutionPerTier and within the run's budget, and reserves it from the latter. Each
// ${NAME…} of a known variable counts its value's length, times the length of what follows
// the name inside the braces (a ${NAME//a/bbbb} replacement can multiply the value; a plain
// ${NAME} counts once): an upper bound on the expansion, read from the parsed objects
// without serialising them.
func (s *substituter) bound(ctx context.Context, rs []*resource.Resource) error {
	if !s.enabled || len(s.vars) == 0 {
		return nil
	}
	var total int64
	var top growth
	for _, r := range rs {
		if r.GetLabels()[substituteKey] == kustomize.DisabledValue || r.GetAnnotations()[substituteKey] == kustomize.DisabledValue {
			continue
		}
		per := map[string]*growth{}
		walkScalars(r.YNode(), func(v string) {
			s.scan(v, per)
		})
		for name, g := range per {
			total += g.bytes
			if g.bytes > top.bytes {
				top = growth{bytes: g.bytes, varRef: name, refs: g.refs, object: r.GetKind() + " " + r.GetName()}
			}
		}
		if total > MaxSubstitutionPerTier {
			return fmt.Errorf("postBuild substitution would add more than %s to this tier's objects (the most: ${%s}, %s, referenced %d times in %s), over the %s allowed per tier",
				size(total), top.varRef, size(int64(len(s.vars[top.varRef]))), top.refs, top.object, size(MaxSubstitutionPerTier))
		}
	}
	if b, ok := ctx.Value(budgetKey{}).(*SubstitutionBudget); ok {
		return b.take(total)
	}
	return nil
}

// scan adds to per the growth of each reference to a known variable in v.
func (s *substituter) scan(v string, per map[string]*growth) {
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			return
		}
		v = v[i+2:]
		n := 0
		for n < len(v) && (v[n] == '_' || v[n] >= 'a' && v[n] <= 'z' || v[n] >= 'A' && v[n] <= 'Z' || n > 0 && v[n] >= '0' && v[n] <= '9') {
			n++
		}
		val, ok := s.vars[v[:n]]
		if n == 0 || !ok {
			continue
		}
		factor := int64(1)
		if end := strings.IndexByte(v[n:], '}'); end > 0 {
			factor = int64(end)
		} else if end < 0 {
			factor = int64(len(v) - n)
		}
		g := per[v[:n]]
		if g == nil {
			g = &growth{}
			per[v[:n]] = g
		}
		g.bytes += int64(len(val)) * max(factor, 1)
		g.refs++
	}
}

// walkScalars calls f with every scalar (keys included) under n.
func walkScalars(n *kyaml.Node, f func(string)) {
	if n == nil {
		return
	}
	if n.Kind == kyaml.ScalarNode {
		f(n.Value)
		return
	}
	for _, c := range n.Content {
		walkScalars(c, f)
	}
}

// size renders a byte count for people: 3.9 GiB, 16 MiB, 512 B.
func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
