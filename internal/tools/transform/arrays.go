package transform

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/barrhawk/barrhawk/internal/jsondiff"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// operations are the operations of array_operations, in the order listed.
var operations = []any{
	"unique", "sort", "reverse", "flatten", "chunk", "intersection", "union", "difference",
	"count", "shuffle", "first", "last", "sum",
}

func arrayOperations() tool.Tool {
	type args struct {
		Operation string          `json:"operation"`
		Array     json.RawMessage `json:"array"`
		Array2    json.RawMessage `json:"array2"`
		Size      *float64        `json:"size"`
		Order     string          `json:"order"`
		By        *string         `json:"by"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "array_operations",
			Description: "Apply one operation to a JSON array. Elements are equal when their JSON values are " +
				"(key order ignored, 1 equals 1.0, 1 differs from \"1\"). " +
				"unique: drop repeats, keeping first occurrences. " +
				"sort: order by value (null < booleans < numbers < strings < arrays < objects; strings by code " +
				"point), or by the key named in by (elements without it go last); stable; order asc|desc. " +
				"reverse. flatten: flatten nested arrays at every depth. chunk: split into arrays of size elements. " +
				"intersection, union, difference (elements of array not in array2): set operations with array2, " +
				"without repeats, in first-seen order. count: number of elements, with distinct and occurrences " +
				"[{value, count}]. shuffle: random order. first, last: the first or last element (null if empty), " +
				"or with size an array of up to size elements. sum: exact sum of numbers. " +
				"Returns {operation, result} plus length for array results, distinct and occurrences for count, " +
				"found for first and last.",
			Phrases:  []string{"dedupe a list", "sort a list", "flatten nested arrays", "set intersection", "chunk array", "shuffle list", "unique values", "count occurrences", "union of lists", "first n items", "last n elements", "lodash"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.String("operation", "The operation to apply").Enum(operations...).Required(),
				schema.Array("array", "The array to operate on; elements may be any JSON values", nil).Required(),
				schema.Array("array2", "Second array, required for intersection, union and difference", nil),
				schema.Integer("size", "chunk: elements per chunk (required); first/last: how many elements to take (result is then an array)").Min(1),
				schema.String("order", "sort: ascending or descending").Enum("asc", "desc").Default("asc"),
				schema.String("by", "sort: sort objects by the value of this key"),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			arr, err := decodeArray("array", in.Array)
			if err != nil {
				return nil, err
			}
			op := in.Operation
			size := 0
			if in.Size != nil {
				size = int(min(*in.Size, float64(len(arr)+1)))
			}
			out := map[string]any{"operation": op}
			var result []any
			switch op {
			case "unique":
				result = union(arr)
			case "sort":
				result, err = sortArray(arr, in.By, in.Order == "desc")
			case "reverse":
				result = slices.Clone(arr)
				slices.Reverse(result)
			case "flatten":
				result = flatten(make([]any, 0, len(arr)), arr)
			case "chunk":
				if in.Size == nil || size < 1 {
					return nil, tool.Errorf(tool.CodeInvalidArgs, `operation "chunk" needs argument "size" (elements per chunk, at least 1)`)
				}
				result = make([]any, 0, len(arr)/size+1)
				for c := range slices.Chunk(arr, size) {
					result = append(result, c)
				}
			case "intersection", "union", "difference":
				if len(in.Array2) == 0 {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "operation %q needs argument \"array2\" (the second array)", op)
				}
				arr2, err := decodeArray("array2", in.Array2)
				if err != nil {
					return nil, err
				}
				result = setOperation(op, arr, arr2)
			case "count":
				return count(out, arr), nil
			case "shuffle":
				result = slices.Clone(arr)
				rand.Shuffle(len(result), func(i, j int) { result[i], result[j] = result[j], result[i] })
			case "first", "last":
				out["found"] = len(arr) > 0
				if in.Size == nil {
					out["result"] = nil
					if len(arr) > 0 {
						out["result"] = arr[0]
						if op == "last" {
							out["result"] = arr[len(arr)-1]
						}
					}
					return out, nil
				}
				n := min(size, len(arr))
				result = arr[:n]
				if op == "last" {
					result = arr[len(arr)-n:]
				}
			case "sum":
				sum, err := sumArray(arr)
				if err != nil {
					return nil, err
				}
				out["result"] = sum
				return out, nil
			default:
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"operation\": unknown operation %q", op)
			}
			if err != nil {
				return nil, err
			}
			if result == nil {
				result = []any{}
			}
			out["result"], out["length"] = result, len(result)
			return out, nil
		}),
	}
}

// decodeArray decodes the raw JSON array of argument name.
func decodeArray(name string, raw json.RawMessage) ([]any, error) {
	v, err := jsondiff.DecodeArg(name, raw)
	if err != nil {
		return nil, err
	}
	arr, ok := v.([]any)
	if !ok && v != nil {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: expected array, got %s", name, jsondiff.TypeOf(v))
	}
	return arr, nil
}

// union returns the elements of the arrays without repeats, in first-seen
// order.
func union(arrays ...[]any) []any {
	seen := map[string]bool{}
	out := []any{}
	for _, arr := range arrays {
		for _, v := range arr {
			k := jsondiff.Canonical(v)
			if !seen[k] {
				seen[k] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// setOperation computes intersection, union or difference of a and b.
func setOperation(op string, a, b []any) []any {
	if op == "union" {
		return union(a, b)
	}
	inB := map[string]bool{}
	for _, v := range b {
		inB[jsondiff.Canonical(v)] = true
	}
	keep := op == "intersection"
	return slices.DeleteFunc(union(a), func(v any) bool { return inB[jsondiff.Canonical(v)] != keep })
}

func flatten(out, arr []any) []any {
	for _, v := range arr {
		if inner, ok := v.([]any); ok {
			out = flatten(out, inner)
		} else {
			out = append(out, v)
		}
	}
	return out
}

func count(out map[string]any, arr []any) map[string]any {
	type occurrence struct {
		Value any `json:"value"`
		Count int `json:"count"`
	}
	occ := []*occurrence{}
	at := map[string]*occurrence{}
	for _, v := range arr {
		k := jsondiff.Canonical(v)
		if o := at[k]; o != nil {
			o.Count++
			continue
		}
		at[k] = &occurrence{Value: v, Count: 1}
		occ = append(occ, at[k])
	}
	out["result"], out["distinct"], out["occurrences"] = len(arr), len(occ), occ
	return out
}

// sortArray sorts a copy of arr by value, or objects by the value of key by.
func sortArray(arr []any, by *string, desc bool) ([]any, error) {
	out := slices.Clone(arr)
	dir := 1
	if desc {
		dir = -1
	}
	if by == nil {
		slices.SortStableFunc(out, func(a, b any) int { return dir * compareValues(a, b) })
		return out, nil
	}
	key := *by
	for i, v := range arr {
		if _, ok := v.(map[string]any); !ok {
			return nil, tool.Errorf(tool.CodeInvalidArgs,
				"argument \"by\": sorting by key %q needs an array of objects, but array[%d] is %s %s; leave out \"by\" to sort by value",
				key, i, article(jsondiff.TypeOf(v)), jsondiff.Format(v, 40))
		}
	}
	slices.SortStableFunc(out, func(a, b any) int {
		av, aok := a.(map[string]any)[key]
		bv, bok := b.(map[string]any)[key]
		switch {
		case !aok || !bok:
			return cmp.Compare(boolRank(!aok), boolRank(!bok)) // missing keys last
		}
		return dir * compareValues(av, bv)
	})
	return out, nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func article(typ string) string {
	if strings.ContainsAny(typ[:1], "aeiou") {
		return "an " + typ
	}
	return "a " + typ
}

// typeRank orders the JSON types for sorting.
var typeRank = map[string]int{
	jsondiff.TypeNull: 0, jsondiff.TypeBoolean: 1, jsondiff.TypeNumber: 2,
	jsondiff.TypeString: 3, jsondiff.TypeArray: 4, jsondiff.TypeObject: 5,
}

// compareValues is a total order on JSON values: by type (null, boolean,
// number, string, array, object), then by value; arrays element by element,
// objects by canonical text.
func compareValues(a, b any) int {
	ta, tb := jsondiff.TypeOf(a), jsondiff.TypeOf(b)
	if ta != tb {
		return cmp.Compare(typeRank[ta], typeRank[tb])
	}
	switch x := a.(type) {
	case bool:
		return cmp.Compare(boolRank(x), boolRank(b.(bool)))
	case string:
		return strings.Compare(x, b.(string))
	case []any:
		y := b.([]any)
		for i := range min(len(x), len(y)) {
			if c := compareValues(x[i], y[i]); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(x), len(y))
	case map[string]any:
		return strings.Compare(jsondiff.Canonical(a), jsondiff.Canonical(b))
	}
	if da, ok := jsondiff.NumberOf(a); ok {
		db, _ := jsondiff.NumberOf(b)
		return da.Cmp(db)
	}
	return 0
}

// sumArray adds the numbers of arr exactly, falling back to float64 when
// exponents are too far apart for an exact sum.
func sumArray(arr []any) (json.Number, error) {
	var sum jsondiff.Decimal
	exact := true
	var f float64
	for i, v := range arr {
		d, ok := jsondiff.NumberOf(v)
		if !ok {
			return "", tool.Errorf(tool.CodeInvalidArgs,
				"argument \"array\": sum needs numbers, but array[%d] is %s %s", i, article(jsondiff.TypeOf(v)), jsondiff.Format(v, 40))
		}
		if exact {
			if s, ok := sum.Add(d); ok {
				sum = s
				continue
			}
			exact, f = false, sum.Float64()
		}
		f += d.Float64()
	}
	if exact {
		return sum.Number(), nil
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "", tool.Errorf(tool.CodeInvalidArgs, "argument \"array\": the sum is beyond the range of a 64-bit float")
	}
	return json.Number(fmt.Sprint(f)), nil
}
