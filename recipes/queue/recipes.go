package queue

import (
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/internal/recipe"
)

// NewQueue makes the Queue of one client for the queue called name: the
// constructor every recipe provides.
type NewQueue func(cli *clientv3.Client, name string) (Queue, error)

// Recipe is a queue implementation scenarios can run by name, of the
// registry type every family shares (see lock.Recipe). A user's own:
//
//	queue.Recipe{Name: "my-queue", Summary: "what it does", New: newMine}
type Recipe = recipe.Recipe[NewQueue]

func expect(v checker.ViolationKind) checker.Expectation {
	return checker.Expectation{Checker: checker.CheckerQueueDelivery, Violation: v}
}

// registry lists the correct recipes first, then the deliberately broken
// ones in the order the gallery shows them.
var registry = recipe.NewRegistry(recipe.Queue,
	Recipe{Name: "claimed", New: NewClaimed,
		Summary: "experimental/recipes.Queue's Enqueue; an item is claimed by moving it to a record of the consumer's, " +
			"a transaction tried again after a lost answer: delivered once"},
	Recipe{Name: "priority-claimed", New: NewPriorityClaimed,
		Summary: "experimental/recipes.PriorityQueue's Enqueue; claimed as by claimed, the lowest priority number first"},
	Recipe{Name: "at-most-once", Broken: true, New: newAtMostOnce,
		Expect: expect(checker.ViolationLostItem),
		Summary: "experimental/recipes.Queue, unmodified: Dequeue claims by deleting, so a claim whose answer was lost " +
			"takes the item from everyone and gives it to no one"},
	Recipe{Name: "priority-at-most-once", Broken: true, New: newPriorityAtMostOnce,
		Expect:  expect(checker.ViolationLostItem),
		Summary: "experimental/recipes.PriorityQueue, unmodified: loses an item to a lost answer as at-most-once does"},
	Recipe{Name: "unconditional-claim", Broken: true, New: newUnconditionalClaim,
		Expect: expect(checker.ViolationDuplicateItem),
		Summary: "a consumer reads the first item and deletes it without comparing its revision: two consumers " +
			"that read at once both take it"},
	Recipe{Name: "unpadded-priority", Broken: true, New: newUnpaddedPriority,
		Expect: expect(checker.ViolationPriorityInversion),
		Summary: "priorities written into keys without zero padding: keys sort as text, so priority 10 comes " +
			"before priority 2"},
)

// Recipes returns the gallery: the correct recipes first, then the
// deliberately broken ones.
func Recipes() []Recipe { return registry.All() }

// Lookup returns the recipe called name, or an error wrapping
// ErrUnknownRecipe that lists the names there are, the closest first.
func Lookup(name string) (Recipe, error) {
	r, err := registry.Lookup(name)
	if err != nil {
		return Recipe{}, recipe.Unknown("queue: ", ErrUnknownRecipe, err)
	}
	return r, nil
}
