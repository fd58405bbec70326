package flux

import (
	"slices"
	"testing"
)

func TestWalks(t *testing.T) {
	// a <- b <- c, a <- d, c depends on a missing x.
	c := &Chain{Kustomizations: []*Node{
		{ID: "ns/a", Dependents: []string{"ns/b", "ns/d"}},
		{ID: "ns/b", DependsOn: []string{"ns/a"}, Dependents: []string{"ns/c"}},
		{ID: "ns/c", DependsOn: []string{"ns/b", "ns/x"}},
		{ID: "ns/d", DependsOn: []string{"ns/a"}},
	}}
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"downstream of a", c.Downstream("ns/a"), []string{"ns/b", "ns/c", "ns/d"}},
		{"downstream of a leaf", c.Downstream("ns/c"), []string{}},
		{"upstream of c, missing included", c.Upstream("ns/c"), []string{"ns/a", "ns/b", "ns/x"}},
		{"upstream of an unknown id", c.Upstream("ns/zz"), []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Equal(tt.got, tt.want) {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}
