// Package data holds the test data tools: data_generate (fake but realistic
// values), data_edge_cases (well-known hostile and boundary inputs) and
// data_from_schema (instances of a JSON Schema).
//
// Generated values are reproducible: every generating tool takes a seed and
// returns the seed it used, and all randomness comes from one math/rand/v2 PCG
// seeded from it. Only the standard library and small embedded word lists are
// used; e-mail addresses, URLs, IP addresses and phone numbers come from the
// ranges reserved for documentation and fiction (RFC 2606, RFC 5737,
// RFC 3849, the 555-01xx and Ofcom drama ranges), so generated data never
// reaches a real person or host.
package data

import (
	"math/rand/v2"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Group is the heading these tools are listed under.
const Group = "Data Generation"

// Tools returns the family's tools, in the order they are listed.
func Tools() []tool.Tool {
	return []tool.Tool{dataGenerate(), dataEdgeCases(), dataFromSchema()}
}

// maxSeed is the largest seed accepted and returned: 2^53-1, the largest
// integer a JSON number carries exactly in every client.
const maxSeed = 1<<53 - 1

// maxCount is the largest number of values one call generates.
const maxCount = 1000

// pcgStream is the second PCG word; the seed is the first.
const pcgStream = 0x9e3779b97f4a7c15

// newRand returns the generator for seed, choosing (and returning) a random
// seed when seed is nil.
func newRand(seed *int64) (*rand.Rand, int64) {
	s := rand.Int64N(maxSeed + 1)
	if seed != nil {
		s = *seed
	}
	return rand.New(rand.NewPCG(uint64(s), pcgStream)), s
}

// seedProp and countProp are shared by the generating tools.
func seedProp() schema.Prop {
	return schema.Integer("seed", "Same seed and arguments, same values; default random; returned").Min(0).Max(maxSeed)
}

func countProp() schema.Prop {
	return schema.Integer("count", "How many values").Min(1).Max(maxCount).Default(1)
}

// pick returns a random element of list.
func pick[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

// between returns a random integer in [lo, hi].
func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }
