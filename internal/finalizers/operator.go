package finalizers

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/report"
)

// strimziTopicFinalizer is set by Strimzi's unidirectional topic operator, which runs in the
// entity operator of the Kafka cluster a KafkaTopic names — not in the cluster operator, whose
// RBAC also covers KafkaTopics only so that it can delegate those rights.
const strimziTopicFinalizer = "strimzi.io/topic-operator"

// operatorEvidence attributes a finalizer from an operator's own custom resources where they,
// not RBAC, name the component that removes it. ok is false when no such rule applies.
//
// The Strimzi rule is kept as a product fact (issue #38, docs/why-terminating.md "Three possibly
// taught rules"): the label-to-resource step could be general, but what the rule rests on is not
// shown by the cluster — the cluster operator may update KafkaTopics only to delegate that right,
// and the remover is a per-Kafka component named <cluster>-entity-operator, declared by
// spec.entityOperator.topicOperator. The general ranking would name the cluster operator; a rule
// preferring the workloads of a labelled resource would misjudge operators that handle such
// objects themselves.
func (x *Explainer) operatorEvidence(ctx context.Context, o subject, name string) (attribution, []report.Gap, bool) {
	if name != strimziTopicFinalizer || o.res.Group != "kafka.strimzi.io" || o.res.Kind != "KafkaTopic" {
		return attribution{}, nil, false
	}
	a, gaps := x.strimziTopicOperator(ctx, o)
	return a, gaps, true
}

// strimziTopicOperator follows the topic's strimzi.io/cluster label to its Kafka resource and
// the Deployment <cluster>-entity-operator that runs the topic operator.
func (x *Explainer) strimziTopicOperator(ctx context.Context, o subject) (attribution, []report.Gap) {
	ns := o.obj.GetNamespace()
	cluster := o.obj.GetLabels()["strimzi.io/cluster"]
	if cluster == "" {
		c := Controller{Note: "the topic has no strimzi.io/cluster label, so no Kafka cluster's topic operator handles it"}
		return attribution{controllers: []Controller{c}, summary: c.Note, dead: true}, nil
	}
	kafka := fmt.Sprintf("kafkas.kafka.strimzi.io/%s -n %s", cluster, ns)
	var evidence []string
	var gaps []report.Gap
	res, ok := x.resource("kafka.strimzi.io", "Kafka")
	if !ok {
		evidence = append(evidence, "the server does not serve kafkas.kafka.strimzi.io: the cluster operator and its Kafka type are gone")
	} else {
		k, err := x.c.Dynamic.Resource(res.GVR()).Namespace(ns).Get(ctx, cluster, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			evidence = append(evidence, kafka+" (label strimzi.io/cluster) no longer exists, so neither does its entity operator")
		case err != nil:
			gaps = append(gaps, getGap(typeID(res, ns).Named(cluster), "reading "+kafka, err))
		default:
			if _, found, _ := unstructured.NestedMap(k.Object, "spec", "entityOperator", "topicOperator"); !found {
				evidence = append(evidence, kafka+" declares no spec.entityOperator.topicOperator, so no topic operator runs for it")
			} else {
				evidence = append(evidence, kafka+" declares a topic operator in spec.entityOperator")
			}
		}
	}
	deploy := cluster + "-entity-operator"
	d, err := x.c.Kube.AppsV1().Deployments(ns).Get(ctx, deploy, metav1.GetOptions{})
	ref := ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: ns, Name: deploy}
	switch {
	case apierrors.IsNotFound(err):
		c := Controller{Object: ref, Note: "the topic operator of Kafka cluster " + cluster + " runs in " + ref.String() + ", which does not exist", Evidence: evidence}
		return attribution{controllers: []Controller{c}, summary: c.Note, dead: true}, gaps
	case err != nil:
		return attribution{unread: true}, append(gaps, getGap(ref.ID(), "reading "+ref.String(), err))
	}
	ws, err := appendWorkload(nil, "deployments", "Deployment", d.ObjectMeta, d.Spec.Template.Spec.ServiceAccountName, d)
	if err != nil {
		return attribution{unread: true}, append(gaps, getGap(ref.ID(), "reading "+ref.String(), err))
	}
	c := ws[0].controller()
	c.Evidence = evidence
	c.Note = "the entity operator of Kafka cluster " + cluster + " (label strimzi.io/cluster), where its topic operator runs"
	return attribution{controllers: []Controller{*c}, summary: c.Note, dead: !c.Healthy}, gaps
}
