package retire

import (
	"testing"

	"github.com/kubeforensics/suite/internal/cluster"
)

func TestEvictPodCommand(t *testing.T) {
	got := Planner{Target: cluster.Target{Context: "prod"}}.EvictPodCommand("data", "db-0")
	want := `echo '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"db-0","namespace":"data"}}' | kubectl --context=prod create --raw /api/v1/namespaces/data/pods/db-0/eviction -f -`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
