package retire

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/helmstorage"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// Cluster is everything the live gate reads from a cluster. LiveCluster reads a real one;
// tests give the gate their own.
type Cluster interface {
	// Kustomizations lists the Flux Kustomizations in namespace ("" for all).
	Kustomizations(ctx context.Context, namespace string) (*LiveKustomizations, error)
	// ConfigMap reads one ConfigMap's data; found is false when it does not exist.
	ConfigMap(ctx context.Context, namespace, name string) (data map[string]string, found bool, err error)
	// Facts reads a removed object as it is now.
	Facts(ctx context.Context, r *Removal) *Live
	// Downstream lists every Kustomization that depends on id, directly or not, sorted.
	Downstream(id string) []string
	// Installed reads the deployed release of the live HelmRelease namespace/name from
	// helm-controller's storage; nil, nil when it is not on the cluster or never installed.
	Installed(ctx context.Context, namespace, name string) (*helmstorage.Release, error)
	// InstalledChart is Installed with the chart the release was installed from
	// (helmstorage.DeployedChart).
	InstalledChart(ctx context.Context, namespace, name string) (*helmstorage.Release, error)
	// Capabilities are what a chart sees of the cluster in .Capabilities, read as
	// helm-controller's Helm reads them: the server's version and the API versions it serves.
	Capabilities(ctx context.Context) (kubeVersion string, apiVersions []string, err error)
}

// LiveKustomizations are the Kustomizations a cluster holds, as gitops builds them.
type LiveKustomizations struct {
	Items []kbuild.Kustomization
	// Inventory is each one's status.inventory ids, by namespace/name.
	Inventory map[string][]string
	// Unchecked are what the listing could not read (a type not served, a forbidden list):
	// gaps that do not make the verdict UNKNOWN.
	Unchecked []report.Gap
}

// LiveCluster is the Cluster of a real API server.
type LiveCluster struct {
	c         *cluster.Clients
	catalog   *kinds.Catalog
	explainer *finalizers.Explainer
	chain     *flux.Chain
}

// NewLiveCluster reads through c.
func NewLiveCluster(c *cluster.Clients) *LiveCluster { return &LiveCluster{c: c} }

// Kustomizations lists the Kustomizations and discovers the API for the reads that follow.
func (lc *LiveCluster) Kustomizations(ctx context.Context, namespace string) (*LiveKustomizations, error) {
	c := lc.c
	objs, err := flux.Read(ctx, c.Dynamic, namespace)
	if errors.Is(err, flux.ErrNotInstalled) {
		return nil, exitcode.UsageErrorf("%v on %s: is Flux installed? Use --offline to judge the repository alone", err, c.Target)
	}
	if err != nil {
		return nil, cluster.ReadError(c.Target, "listing Kustomizations", err)
	}
	catalog, err := kinds.Discover(c.Discovery)
	if err != nil {
		return nil, cluster.ReadError(c.Target, "discovering the API", err)
	}
	lc.catalog, lc.explainer, lc.chain = catalog, finalizers.New(c, catalog), flux.Build(objs)
	out := &LiveKustomizations{Inventory: map[string][]string{}, Unchecked: objs.Gaps}
	for i := range objs.Kustomizations {
		ks := objs.Kustomizations[i].DeepCopy()
		ks.APIVersion, ks.Kind = kustomizev1.GroupVersion.String(), kustomizev1.KustomizationKind
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ks)
		if err != nil {
			return nil, fmt.Errorf("converting Kustomization %s/%s: %w", ks.Namespace, ks.Name, err)
		}
		decoded, err := kbuild.KustomizationsIn([]*unstructured.Unstructured{{Object: m}})
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, decoded...)
		if inv := ks.Status.Inventory; inv != nil {
			ids := make([]string, 0, len(inv.Entries))
			for _, e := range inv.Entries {
				ids = append(ids, e.ID)
			}
			out.Inventory[ks.Namespace+"/"+ks.Name] = ids
		}
	}
	return out, nil
}

// ConfigMap reads one ConfigMap (never a Secret).
func (lc *LiveCluster) ConfigMap(ctx context.Context, namespace, name string) (map[string]string, bool, error) {
	cm, err := lc.c.Kube.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, false, nil
	case err != nil:
		return nil, false, errors.New(cluster.Reason(err))
	}
	return cm.Data, true, nil
}

// Downstream walks the dependsOn graph read with the Kustomizations.
func (lc *LiveCluster) Downstream(id string) []string {
	seen := map[string]bool{}
	stack := []string{id}
	for len(stack) > 0 {
		n := lc.chain.Node(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		if n == nil {
			continue
		}
		for _, d := range n.Dependents {
			if !seen[d] && d != id {
				seen[d] = true
				stack = append(stack, d)
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}
