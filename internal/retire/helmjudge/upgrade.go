package helmjudge

import (
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/helm"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// renderInputs are the parts of a HelmRelease's spec that decide what its chart renders.
var renderInputs = []string{"chart", "chartRef", "values", "valuesFrom", "postRenderers"}

// helmChange is one HelmRelease that both revisions declare, in the unit that declares it.
type helmChange struct {
	unit       Unit
	base, cand *unstructured.Unstructured
	// chart says what changes in what the chart renders, "" when nothing does.
	chart string
}

// Upgrades judges, without rendering the chart, every HelmRelease that both revisions
// declare and whose chart or values the candidate changes (a release target change is
// Retargets'). A claim the base values make the chart create and the candidate values no
// longer do (an item removed or disabled, switched to another type or to existingClaim, or its
// name changed) is deleted by the upgrade: an Upgraded removal, unsafe, naming the values
// path. For a chart known to make state only as its values declare (appTemplate), values that
// keep every claim prove the upgrade deletes none: a note with that evidence. Any other change
// is in incomplete: what the upgrade deletes is not seen, so it is UNKNOWN, never SAFE.
// HelmReleases in rendered (rendered at both revisions) are left to the renders.
func Upgrades(units []Unit, rendered map[string]bool) (rs []Upgrade, incomplete []report.Gap, notes []report.Note) {
	var bases, cands []*unstructured.Unstructured
	for _, u := range units {
		bases, cands = append(bases, u.Base...), append(cands, u.Candidate...)
	}
	sides := [2]map[string]*unstructured.Unstructured{ChartSources(bases), ChartSources(cands)}
	values := [2]map[string]*unstructured.Unstructured{valuesObjects(bases), valuesObjects(cands)}
	for _, c := range helmChanges(units, sides, values) {
		if rendered[inventory.RefOf(c.base).ID()] {
			continue // its renders are compared object by object
		}
		if r, ok := droppedClaims(c, sides); ok {
			rs = append(rs, r)
			continue
		}
		if ev := appTemplateEvidence(c, sides); ev != "" {
			notes = append(notes, report.Note{Code: report.NoteHelmValuesKeepClaims, Subject: inventory.RefOf(c.base).GapID(), Message: ev})
			continue
		}
		incomplete = append(incomplete, notJudged(inventory.RefOf(c.base).GapID(), report.GapUnsupported, fmt.Sprintf("HelmRelease %s/%s (Kustomization %s)", c.base.GetNamespace(), c.base.GetName(), c.unit.Kustomization),
			fmt.Sprintf("the candidate changes %s, and its chart is not rendered here, so what upgrading release %s deletes is unknown", c.chart, helm.ReleaseName(c.base))))
	}
	return rs, incomplete, notes
}

// helmChanges lists the HelmReleases both revisions of a unit declare whose render inputs,
// the chart source a chartRef names, or the ConfigMaps and Secrets among values that their
// valuesFrom reads, the candidate changes; retargeted and suspended ones are left out
// (Retargets names the first; helm-controller leaves the second alone).
func helmChanges(units []Unit, sides, values [2]map[string]*unstructured.Unstructured) []helmChange {
	var out []helmChange
	for _, u := range units {
		base := map[string]*unstructured.Unstructured{}
		for _, o := range u.Base {
			if inventory.RefOf(o).GroupKind() == ReleaseKind {
				base[inventory.RefOf(o).ID()] = o
			}
		}
		for _, c := range u.Candidate {
			b, ok := base[inventory.RefOf(c).ID()]
			if !ok || inventory.RefOf(c).GroupKind() != ReleaseKind || retarget(b, c, sides) != "" {
				continue
			}
			if s, _, _ := unstructured.NestedBool(c.Object, "spec", "suspend"); s {
				continue
			}
			var changed []string
			for _, f := range renderInputs {
				if !reflect.DeepEqual(helm.Spec(b)[f], helm.Spec(c)[f]) {
					changed = append(changed, "spec."+f)
				}
			}
			if to := sourceChanged(b, c, sides); to != nil {
				changed = append(changed, fmt.Sprintf("the chart its source %s %s/%s serves", to.GetKind(), to.GetNamespace(), to.GetName()))
			}
			changed = append(changed, valuesFromChanged(b, c, values)...)
			if len(changed) > 0 {
				out = append(out, helmChange{unit: u, base: b, cand: c, chart: strings.Join(changed, ", ")})
			}
		}
	}
	return out
}

// sourceChanged is the candidate's chart source when a chartRef's OCIRepository or HelmChart
// serves another chart or version at the candidate (its url, ref, chart, version or
// sourceRef), nil when it does not or a side does not show it.
func sourceChanged(b, c *unstructured.Unstructured, sides [2]map[string]*unstructured.Unstructured) *unstructured.Unstructured {
	if helm.Spec(c)["chartRef"] == nil {
		return nil
	}
	from, to := helm.ChartSource(b, sides[0]), helm.ChartSource(c, sides[1])
	if from == nil || to == nil {
		return nil
	}
	for _, f := range []string{"url", "ref", "chart", "version", "sourceRef"} {
		if !reflect.DeepEqual(helm.Spec(from)[f], helm.Spec(to)[f]) {
			return to
		}
	}
	return nil
}

// Upgrade is a HelmRelease whose upgrade deletes claims its base values make the chart create
// (retire's Upgraded removal): Loss says what it loses and Count how many claims, Why is the
// reason it is unsafe.
type Upgrade struct {
	// HelmRelease is the HelmRelease as built at base, in Kustomization (its id).
	HelmRelease   *unstructured.Unstructured
	Kustomization string
	Uninstall     *Uninstall
	Loss          string
	Count         int
	Why           string
}

// droppedClaims is the Upgrade of c when the candidate's values stop making a claim
// the base's make the chart create and delete with the release; ok is false when none is
// dropped. A claim kept with helm.sh/resource-policy: keep is left by Helm and not counted.
func droppedClaims(c helmChange, sides [2]map[string]*unstructured.Unstructured) (Upgrade, bool) {
	bv, cv := helm.InlineValues(c.base), helm.InlineValues(c.cand)
	renamed := !reflect.DeepEqual(nameInputs(bv), nameInputs(cv))
	still := map[string]bool{}
	for _, v := range helm.Values(cv) {
		if v.Key() != "" {
			still[v.Key()] = true
		}
	}
	known := helm.AppTemplateVersion(c.base, sides[0]) != ""
	var dropped []helm.Value
	for _, v := range helm.Values(bv) {
		if !v.Deleted || (still[v.Key()] && !renamed) {
			continue
		}
		if known {
			v.Claim = helm.AppTemplateClaim(c.base, bv, v.Key())
		}
		v.What = "the base values make the chart create this claim and the candidate's no longer do, so the upgrade deletes it"
		if renamed {
			v.What = "the candidate changes the chart's fullname or name override, so the claim the base values make gets another name and the upgrade deletes the old one"
		}
		dropped = append(dropped, v)
	}
	if len(dropped) == 0 {
		return Upgrade{}, false
	}
	ref := inventory.RefOf(c.base)
	h := &Uninstall{Release: helm.ReleaseName(c.base), Values: dropped}
	var paths []string
	for _, v := range dropped {
		p := v.Path
		if v.Claim != "" {
			p += " (claim " + v.Claim + ")"
		}
		paths = append(paths, p)
	}
	if _, has := helm.Spec(c.cand)["valuesFrom"]; has {
		h.NotSeen = append(h.NotSeen, "spec.valuesFrom at the candidate (not read): a value there could declare the claim again")
	}
	return Upgrade{HelmRelease: c.base, Kustomization: c.unit.Kustomization, Uninstall: h,
		Loss: fmt.Sprintf("upgrading release %s deletes the claims its values no longer declare: %s", h.Release, strings.Join(paths, ", ")), Count: len(dropped),
		Why: fmt.Sprintf("the candidate changes %s of HelmRelease %s/%s: helm-controller upgrades release %s and Helm deletes what the new manifest no longer has, here %s, and nothing keeps it (retain: true or helm.sh/resource-policy: keep)",
			c.chart, ref.Namespace, ref.Name, h.Release, strings.Join(paths, ", "))}, true
}

// nameInputs are the values that name every claim a chart makes (app-template's and most
// charts' fullname and name overrides).
func nameInputs(values map[string]any) []any {
	global, _ := values["global"].(map[string]any)
	return []any{global["fullnameOverride"], global["nameOverride"], values["fullnameOverride"], values["nameOverride"]}
}

// appTemplateEvidence is the note that proves an app-template upgrade deletes no chart-made
// state, "" when it cannot: both revisions install app-template at a version whose templates
// were read, and at both the values make only claims the candidate still makes (droppedClaims
// found none dropped).
func appTemplateEvidence(c helmChange, sides [2]map[string]*unstructured.Unstructured) string {
	from, to := helm.AppTemplateVersion(c.base, sides[0]), helm.AppTemplateVersion(c.cand, sides[1])
	if from == "" || to == "" || !helm.ValuesSeen(c.base) || !helm.ValuesSeen(c.cand) {
		return ""
	}
	still := map[string]bool{}
	for _, v := range helm.Values(helm.InlineValues(c.cand)) {
		still[v.Key()] = v.Key() != ""
	}
	var made, left []string
	for _, v := range helm.Values(helm.InlineValues(c.base)) {
		switch {
		case v.Key() == "":
		case still[v.Key()]:
			made = append(made, v.Path)
		default: // droppedClaims found every dropped claim kept
			left = append(left, v.Path+" is dropped but kept by helm.sh/resource-policy: keep (retain), so Helm leaves its claim in place, unmanaged")
		}
	}
	var kept []string
	if len(made) > 0 {
		kept = append(kept, "every claim its base values make the chart create is still made at the candidate: "+strings.Join(made, ", "))
	}
	kept = append(kept, left...)
	if len(kept) == 0 {
		kept = append(kept, "its values declare no claim the chart creates (no persistentVolumeClaim item in persistence.*) and no volumeClaimTemplates")
	}
	return fmt.Sprintf("HelmRelease %s/%s (Kustomization %s): the candidate changes %s; app-template %s → %s makes claims only from persistence.* and volumeClaimTemplates and installs no CRDs, and %s, so the upgrade deletes no chart-made state",
		c.base.GetNamespace(), c.base.GetName(), c.unit.Kustomization, c.chart, from, to, strings.Join(kept, "; "))
}
