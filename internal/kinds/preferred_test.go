package kinds

import (
	"testing"
)

// Preferred keeps one entry per group and resource, the preferred version first, and is made
// once per Catalog: explanations ask for it per stuck object and per rule.
func TestPreferred(t *testing.T) {
	c := NewCatalog([]Resource{
		{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment"},
		{Group: "apps", Version: "v1beta1", Resource: "deployments", Kind: "Deployment"},
		{Version: "v1", Resource: "pods", Kind: "Pod"},
	}, nil)
	got := c.Preferred()
	if len(got) != 2 || got[0].Resource != "pods" || got[1].Version != "v1" {
		t.Fatalf("Preferred() = %v, want pods and apps/v1 deployments", got)
	}
	if n := testing.AllocsPerRun(10, func() { _ = c.Preferred() }); n != 0 {
		t.Errorf("Preferred() allocates %v times a call, want 0 (made once per Catalog)", n)
	}
	_ = append(got, Resource{Resource: "appended"})
	if again := c.Preferred(); len(again) != 2 || again[1].Resource != "deployments" {
		t.Errorf("appending to Preferred()'s answer changed the Catalog's: %v", again)
	}
}
