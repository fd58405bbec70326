package helmjudge

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// templateClaimPages bounds the pages of claims read for one StatefulSet.
const templateClaimPages = 20

// TemplateClaims names the claims a release's StatefulSet made from its volumeClaimTemplates:
// they are not in the release's manifest, so the uninstall leaves them, orphaned, unless the
// StatefulSet's persistentVolumeClaimRetentionPolicy.whenDeleted is Delete, when they go with
// it. The StatefulSet controller names them <template>-<statefulset>-<ordinal> and labels them
// with the StatefulSet's selector, which is what is listed.
func (lr *Reader) TemplateClaims(ctx context.Context, sts *unstructured.Unstructured, gaps *[]report.Gap) []Object {
	tpls, policy := claimTemplates(sts)
	if len(tpls) == 0 {
		return nil
	}
	match, _, _ := unstructured.NestedStringMap(sts.Object, "spec", "selector", "matchLabels")
	via := fmt.Sprintf("a volumeClaimTemplates claim of StatefulSet %s/%s (whenDeleted: %s)", sts.GetNamespace(), sts.GetName(), policy)
	var prefixes []string
	for _, t := range tpls {
		if m, ok := t.(map[string]any); ok {
			name, _, _ := unstructured.NestedString(m, "metadata", "name")
			prefixes = append(prefixes, name+"-"+sts.GetName()+"-")
		}
	}
	opts := metav1.ListOptions{LabelSelector: labels.SelectorFromSet(match).String(), Limit: 500}
	var out []Object
	for page := 0; ; page++ {
		list, err := lr.Clients.Kube.CoreV1().PersistentVolumeClaims(sts.GetNamespace()).List(ctx, opts)
		if err != nil {
			*gaps = append(*gaps, cluster.Gap(report.OpList, report.ObjectID{Version: "v1", Resource: "persistentvolumeclaims", Namespace: sts.GetNamespace()}, fmt.Sprintf("listing the claims of StatefulSet %s/%s", sts.GetNamespace(), sts.GetName()), err))
			return out
		}
		for _, c := range list.Items {
			if !hasOrdinalPrefix(c.Name, prefixes) {
				continue
			}
			o := Object{Object: inventory.Ref{Kind: "PersistentVolumeClaim", Namespace: c.Namespace, Name: c.Name}, Via: via, WithOwner: policy == "Delete"}
			var found []report.Gap
			o.Consumers, o.Cost, found = lr.Explainer.ClaimConsumers(ctx, c.Namespace, c.Name)
			*gaps = append(*gaps, found...)
			out = append(out, o)
		}
		if list.Continue == "" {
			return out
		}
		if page+1 >= templateClaimPages {
			*gaps = append(*gaps, report.Gap{Op: report.OpList, Subject: report.ObjectID{Version: "v1", Resource: "persistentvolumeclaims", Namespace: sts.GetNamespace()}, Reason: report.GapTooLarge,
				What: fmt.Sprintf("listing the claims of StatefulSet %s/%s", sts.GetNamespace(), sts.GetName()), Error: fmt.Sprintf("more than %d pages, the rest not read", templateClaimPages)})
			return out
		}
		opts.Continue = list.Continue
	}
}

// hasOrdinalPrefix reports whether name is one of prefixes followed by an ordinal.
func hasOrdinalPrefix(name string, prefixes []string) bool {
	for _, p := range prefixes {
		rest, ok := strings.CutPrefix(name, p)
		if ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return true
		}
	}
	return false
}
