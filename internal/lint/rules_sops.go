package lint

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

var ruleSOPS = Rule{
	ID: "sops-without-decryption", Severity: Error,
	Why:   "kustomize-controller applies a SOPS-encrypted Secret only through the tier's own decryption stanza; without it the apply fails (or would store ciphertext), typically in a tier newly split out that inherited the secret but not the patch",
	Fix:   "add spec.decryption (provider: sops, secretRef: the key Secret) to the Kustomization, or move the Secret to a tier that has it",
	check: checkSOPS,
}

// checkSOPS finds Secrets with a top-level sops key in tiers without spec.decryption. The
// finding points at the Kustomization, where the fix goes.
func checkSOPS(r *Repo, rule Rule, _ Settings) []Finding {
	var out []Finding
	for _, t := range r.Built() {
		ks := t.Kustomization
		if dec, ok, _ := unstructured.NestedMap(ks.Object.Object, "spec", "decryption"); ok && dec != nil {
			continue
		}
		for i, o := range t.Objects {
			if o.GetKind() != "Secret" || o.GetAPIVersion() != "v1" || o.Object["sops"] == nil {
				continue
			}
			out = append(out, rule.finding(t.ID(), objectRef(o), ks.File, r.Locate(ks.File, "Kustomization", ks.Name, ""),
				"%s (%s) is SOPS-encrypted, but %s has no spec.decryption", objectRef(o), fileAt(t, i), t.ID()))
		}
	}
	return out
}
