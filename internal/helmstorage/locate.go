package helmstorage

import (
	"crypto/sha256"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Location is where helm-controller keeps the release of a HelmRelease.
type Location struct {
	// StorageNamespace is the namespace of the release's storage records.
	StorageNamespace string `json:"storageNamespace"`
	// Name is the Helm release name (the records' name label).
	Name string `json:"name"`
}

// Locate is where the live HelmRelease hr's release is stored, as helm-controller last
// recorded it: status.storageNamespace and status.history[0].name; each one missing is
// computed as helm-controller computes it for a new release (HelmRelease.GetStorageNamespace:
// spec.storageNamespace, else the HelmRelease's namespace; GetReleaseName: spec.releaseName,
// else `[<targetNamespace>-]<name>`, shortened past 53 characters by release.ShortenName).
func Locate(hr *unstructured.Unstructured) Location {
	loc := Location{}
	loc.StorageNamespace, _, _ = unstructured.NestedString(hr.Object, "status", "storageNamespace")
	if hist, _, _ := unstructured.NestedSlice(hr.Object, "status", "history"); len(hist) > 0 {
		if latest, ok := hist[0].(map[string]any); ok {
			loc.Name, _ = latest["name"].(string)
		}
	}
	if loc.StorageNamespace == "" {
		loc.StorageNamespace, _, _ = unstructured.NestedString(hr.Object, "spec", "storageNamespace")
	}
	if loc.StorageNamespace == "" {
		loc.StorageNamespace = hr.GetNamespace()
	}
	if loc.Name == "" {
		loc.Name = ReleaseName(hr)
	}
	return loc
}

// ReleaseName is the release name helm-controller gives the HelmRelease hr: spec.releaseName,
// else `<targetNamespace>-<name>` when spec.targetNamespace is set, else its name, shortened
// as helm-controller's release.ShortenName does.
func ReleaseName(hr *unstructured.Unstructured) string {
	name, _, _ := unstructured.NestedString(hr.Object, "spec", "releaseName")
	if name == "" {
		name = hr.GetName()
		if target, _, _ := unstructured.NestedString(hr.Object, "spec", "targetNamespace"); target != "" {
			name = target + "-" + name
		}
	}
	return shortenName(name)
}

// shortenName is helm-controller's release.ShortenName: a name longer than 53 characters (Helm's
// limit) keeps its first 40 and gets `-` and the first 12 hex digits of its SHA-256.
func shortenName(name string) string {
	const maxLength, hashLength = 53, 12
	if len(name) <= maxLength {
		return name
	}
	sum := fmt.Sprintf("%x", sha256.Sum256([]byte(name)))
	return name[:maxLength-hashLength-1] + "-" + sum[:hashLength]
}
