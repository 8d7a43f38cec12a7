package util

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// maxSafeInt is the largest integer a JSON number holds exactly in
// JavaScript (2^53 − 1); seeds stay within ±maxSafeInt to round-trip.
const maxSafeInt = 1<<53 - 1

// maxChoices bounds count.
const maxChoices = 10000

func randomChoice() tool.Tool {
	type args struct {
		Items  []json.RawMessage `json:"items"`
		Count  *float64          `json:"count"` // float64 so that 2.0 binds as well as 2
		Unique *bool             `json:"unique"`
		Seed   *json.Number      `json:"seed"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "random_choice",
			Description: "Pick count items at random from items (any JSON values). With unique (the default) no position is picked twice, so count may not exceed the number of items. " +
				"Returns {choices, indices (0-based positions picked, in pick order), seed}; pass the returned seed back to get the same picks again from the same items.",
			Phrases:  []string{"pick one at random", "random sample", "choose random item", "pick a winner", "random element from list", "lottery"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Array("items", "The values to choose from", nil).Min(1).Required(),
				schema.Integer("count", "How many to pick").Min(1).Max(maxChoices).Default(1),
				schema.Boolean("unique", "Pick each position at most once (sampling without replacement)").Default(true),
				schema.Integer("seed", "Seed for a reproducible choice; random when absent").Min(-maxSafeInt).Max(maxSafeInt),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			n := len(in.Items)
			if n == 0 {
				return nil, invalid("items", "expected at least 1 item, got none")
			}
			count, unique := 1, true
			if in.Count != nil {
				if *in.Count != math.Trunc(*in.Count) || *in.Count < 1 || *in.Count > maxChoices {
					return nil, invalid("count", "expected a whole number from 1 to %d, got %v", maxChoices, *in.Count)
				}
				count = int(*in.Count)
			}
			if in.Unique != nil {
				unique = *in.Unique
			}
			if unique && count > n {
				return nil, invalid("count", "is %d but only %d items can be picked when unique is true (the maximum is %d); lower count or set unique to false", count, n, n)
			}
			var seed int64
			if in.Seed != nil {
				f, err := in.Seed.Float64()
				if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafeInt {
					return nil, invalid("seed", "expected a whole number from %d to %d, got %s", -maxSafeInt, maxSafeInt, in.Seed.String())
				}
				seed = int64(f)
			} else {
				seed = int64(rand.Uint64() >> 11) // 53 bits: exact in any JSON reader
			}
			rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
			indices := make([]int, count)
			if unique {
				perm := make([]int, n)
				for i := range perm {
					perm[i] = i
				}
				for i := range count { // partial Fisher–Yates shuffle
					j := i + rng.IntN(n-i)
					perm[i], perm[j] = perm[j], perm[i]
					indices[i] = perm[i]
				}
			} else {
				for i := range indices {
					indices[i] = rng.IntN(n)
				}
			}
			choices := make([]json.RawMessage, count)
			for i, idx := range indices {
				choices[i] = in.Items[idx]
			}
			return map[string]any{"choices": choices, "indices": indices, "seed": seed}, nil
		}),
	}
}
