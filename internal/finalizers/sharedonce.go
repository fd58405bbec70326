package finalizers

// Evidence that several explanations of one command derive from the same cluster-wide reads is
// derived once per command here, rather than once per stuck object: in a sweep that meets
// dozens of stuck objects, per-object copies of the same lists cost more client CPU than the
// explanations themselves.

import (
	"context"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// crdNamed returns the CustomResourceDefinition called name, nil when the API server has
// none. In a sweep, once its shared reads have started (prefetchShared), it is taken from the
// full list of every CRD that the sweep reads once anyway (crds): a sweep that meets one
// stuck object of each of 90 custom resource types would otherwise GET the same definitions
// that list already holds, one by one. A definition not in that list (created since), or
// every definition when the list failed, is read alone, once per command, as outside a sweep.
func (x *Explainer) crdNamed(ctx context.Context, name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	x.mu.Lock()
	shared := x.sharedRead
	x.mu.Unlock()
	if shared {
		byName, err := cached(x, "crds-by-name", func() (map[string]*apiextensionsv1.CustomResourceDefinition, error) {
			list, err := x.crds(ctx)
			if err != nil {
				return nil, err
			}
			out := make(map[string]*apiextensionsv1.CustomResourceDefinition, len(list))
			for i := range list {
				out[list[i].Name] = &list[i]
			}
			return out, nil
		})
		if crd, ok := byName[name]; ok && err == nil {
			return crd, nil
		}
	}
	return cached(x, "crd/"+name, func() (*apiextensionsv1.CustomResourceDefinition, error) {
		c, err := x.c.APIExtensions.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return c, err
	})
}

// labelledOnce is clusterWideLabelled, made once per command: every strip with no remover reads
// the same APIServices, webhook configurations and ClusterRoleBindings (and the same gaps when
// a list failed), and labelledIn only reads what it returns.
func (x *Explainer) labelledOnce(ctx context.Context) ([]labelledObject, []report.Gap) {
	type labelled struct {
		objs []labelledObject
		gaps []report.Gap
	}
	l, _ := cached(x, "cluster-wide-labelled", func() (labelled, error) {
		objs, gaps := x.clusterWideLabelled(ctx)
		return labelled{objs, gaps}, nil
	})
	return l.objs, l.gaps
}
