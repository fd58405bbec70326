package finalizers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/kinds"
)

// ownershipLabels are the CRD labels that name who installed a type.
var ownershipLabels = []string{"app.kubernetes.io/part-of", "app.kubernetes.io/instance", "app.kubernetes.io/managed-by", "helm.sh/chart"}

// typeEvidence reads the CustomResourceDefinition behind res, if there is one, and says who
// installed it: a Helm release (meta.helm.sh annotations), ownership labels, and its owners with
// whether they still exist. owner names what to reinstall when that is known: a gone owner
// first, else the Helm release. gone is set when the type's installer is proven gone (an owner
// that no longer exists) or the CRD is itself being deleted.
func (x *Explainer) typeEvidence(ctx context.Context, res kinds.Resource) (lines []string, owner string, gone bool) {
	if res.Group == "" || !strings.Contains(res.Group, ".") {
		return nil, "", false
	}
	name := res.Resource + "." + res.Group
	crd, err := x.crdMetadata(ctx, name)
	if apierrors.IsNotFound(err) {
		return nil, "", false
	}
	if err != nil {
		return []string{failureText("reading customresourcedefinitions.apiextensions.k8s.io/"+name, err)}, "", false
	}
	self := "customresourcedefinitions.apiextensions.k8s.io/" + name
	if rel := crd.GetAnnotations()["meta.helm.sh/release-name"]; rel != "" {
		relNS := crd.GetAnnotations()["meta.helm.sh/release-namespace"]
		owner = fmt.Sprintf("Helm release %s -n %s", rel, relNS)
		lines = append(lines, fmt.Sprintf("%s was installed by %s", self, owner))
	}
	var labels []string
	for _, k := range ownershipLabels {
		if v := crd.GetLabels()[k]; v != "" {
			labels = append(labels, k+"="+v)
		}
	}
	labels = append(labels, servedGroupLabels(crd.GetLabels(), x.catalog.Preferred())...)
	if len(labels) > 0 {
		sort.Strings(labels)
		lines = append(lines, self+" is labelled "+strings.Join(labels, ", "))
	}
	for _, ref := range crd.GetOwnerReferences() {
		line, ownerGone := x.ownerState(ctx, ref)
		lines = append(lines, self+" is owned by "+line)
		if ownerGone {
			owner, gone = strings.TrimSuffix(line, ", which no longer exists"), true
		}
	}
	if crd.GetDeletionTimestamp() != nil {
		lines = append(lines, self+" is itself being deleted: it waits for this object to go")
		gone = true
	}
	return lines, owner, gone
}

// crdMetadata returns the metadata of one CRD. Only metadata is read (schemas can be large, and
// nothing else is needed), and every CRD's at once, once per command: a sweep explains objects of
// many types. A failed LIST falls back to reading the one CRD (a role may allow get, not list).
func (x *Explainer) crdMetadata(ctx context.Context, name string) (*metav1.PartialObjectMetadata, error) {
	all, err := x.crdsMetadata(ctx)
	if err == nil {
		if crd, ok := all[name]; ok {
			return crd, nil
		}
		return nil, apierrors.NewNotFound(crdGVR.GroupResource(), name)
	}
	return cached(x, "crd/"+name, func() (*metav1.PartialObjectMetadata, error) {
		return x.c.Metadata.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
	})
}

// crdsMetadata lists the metadata of every CRD once per command, by name. A sweep reads every
// CRD in full anyway (prefetchShared): their metadata is taken from that list when it succeeds.
func (x *Explainer) crdsMetadata(ctx context.Context) (map[string]*metav1.PartialObjectMetadata, error) {
	return cached(x, "crds-metadata", func() (map[string]*metav1.PartialObjectMetadata, error) {
		x.mu.Lock()
		shared := x.sharedRead
		x.mu.Unlock()
		if shared {
			if crds, err := x.crds(ctx); err == nil {
				out := make(map[string]*metav1.PartialObjectMetadata, len(crds))
				for i := range crds {
					out[crds[i].Name] = &metav1.PartialObjectMetadata{TypeMeta: crds[i].TypeMeta, ObjectMeta: crds[i].ObjectMeta}
				}
				return out, nil
			}
		}
		l, err := x.c.Metadata.Resource(crdGVR).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		out := make(map[string]*metav1.PartialObjectMetadata, len(l.Items))
		for i := range l.Items {
			out[l.Items[i].Name] = &l.Items[i]
		}
		return out, nil
	})
}

// ownerState names a cluster-scoped owner and says whether it still exists.
func (x *Explainer) ownerState(ctx context.Context, ref metav1.OwnerReference) (string, bool) {
	gv, _ := schema.ParseGroupVersion(ref.APIVersion)
	res, ok := x.resource(gv.Group, ref.Kind)
	if !ok {
		return fmt.Sprintf("%s %s (%s, a kind the server no longer serves)", ref.Kind, ref.Name, ref.APIVersion), true
	}
	r := refFor(res, "", ref.Name).String()
	cur, err := x.c.Metadata.Resource(res.GVR()).Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err), err == nil && cur.UID != ref.UID:
		return r + ", which no longer exists", true
	case err != nil:
		return r + " (" + failureText("reading it", err) + ")", false
	}
	return r, false
}

// servedGroupLabels returns the labels (`key=value`) whose key's prefix is an API group the
// cluster serves: a package manager or operator that installs CRDs marks them with its own
// group's labels (`pkg.crossplane.io/package=provider-aws-s3`, `cluster.x-k8s.io/provider=…`),
// so such a label ties the type to the installer of that group. A group that is no longer served
// ties nothing here (the CRD's owner references, if any, still name the gone installer); keys
// without a prefix or of a group the cluster does not serve are not read as an installer.
func servedGroupLabels(labels map[string]string, served []kinds.Resource) []string {
	groups := map[string]bool{}
	for _, r := range served {
		if r.Group != "" {
			groups[r.Group] = true
		}
	}
	var out []string
	for k, v := range labels {
		if prefix, _, ok := strings.Cut(k, "/"); ok && groups[prefix] {
			out = append(out, k+"="+v)
		}
	}
	sort.Strings(out)
	return out
}
