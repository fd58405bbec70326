package finalizers

import "testing"

// A finalizer is held for its owner when one of its name's words is the owner's kind or plural,
// whole: a word that merely contains the kind, or a kind named nowhere, is not.
func TestNamesKind(t *testing.T) {
	for _, tc := range []struct {
		name, kind, plural string
		want               bool
	}{
		{"starrocks.com.starrockswarehouse/protection", "StarRocksWarehouse", "starrockswarehouses", true},
		{"example.io/cluster-protection", "Cluster", "clusters", true},
		{"workers.example.io/cleanup", "Worker", "workers", true},
		{"kubernetes.io/pvc-protection", "StatefulSet", "statefulsets", false},
		{"starrocks.com/protection", "StarRocksWarehouse", "starrockswarehouses", false},
		{"example.io/clusterset-cleanup", "Cluster", "clusters", false},
		{"redisSentinelFinalizer", "RedisSentinel", "redissentinels", false},
	} {
		if got := namesKind(tc.name, tc.kind, tc.plural); got != tc.want {
			t.Errorf("namesKind(%q, %s) = %v, want %v", tc.name, tc.kind, got, tc.want)
		}
	}
}

// Kubernetes' own finalizers and those with an explainer of their own are never taken for a
// product's owner guard, even when a word of theirs is the owner's kind (a Job's pods).
func TestCoreFinalizer(t *testing.T) {
	for name, want := range map[string]bool{
		"batch.kubernetes.io/job-tracking":            true,
		"kubernetes.io/pvc-protection":                true,
		"foregroundDeletion":                          true,
		"example.k8s.io/cleanup":                      true,
		"starrocks.com.starrockswarehouse/protection": false,
		"example.io/cluster-protection":               false,
	} {
		if got := coreFinalizer(name); got != want {
			t.Errorf("coreFinalizer(%q) = %v, want %v", name, got, want)
		}
	}
}
