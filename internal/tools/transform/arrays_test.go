package transform

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/barrhawk/barrhawk/internal/jsondiff"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestObjectDiff(t *testing.T) {
	t.Parallel()
	const (
		before = `{"a":1,"b":{"c":2,"d":[1,2]},"gone":true}`
		after  = `{"a":1,"b":{"c":2,"d":[1,3,4]},"new":null}`
	)
	for _, tc := range []struct{ args, want string }{
		{`{"expected":` + before + `,"actual":` + after + `}`, `{"equal":false,
			"differences":[
				{"path":"$.b.d[1]","type":"changed","expected":2,"actual":3},
				{"path":"$.b.d[2]","type":"added","actual":4},
				{"path":"$.gone","type":"removed","expected":true},
				{"path":"$.new","type":"added","actual":null}],
			"counts":{"added":2,"removed":1,"changed":1,"total":4}}`},
		{`{"expected":` + before + `,"actual":` + after + `,"deep":false}`, `{"equal":false,
			"differences":[
				{"path":"$.b","type":"changed","expected":{"c":2,"d":[1,2]},"actual":{"c":2,"d":[1,3,4]}},
				{"path":"$.gone","type":"removed","expected":true},
				{"path":"$.new","type":"added","actual":null}],
			"counts":{"added":1,"removed":1,"changed":1,"total":3}}`},
		{`{"expected":{"x":{"y":1},"z":[1]},"actual":{"z":[1.0],"x":{"y":1}}}`,
			`{"equal":true,"differences":[],"counts":{"added":0,"removed":0,"changed":0,"total":0}}`},
		{`{"expected":{"x":{"y":1}},"actual":{"x":{"y":1}},"deep":false}`,
			`{"equal":true,"differences":[],"counts":{"added":0,"removed":0,"changed":0,"total":0}}`},
		{`{"expected":{"id":1},"actual":{"id":"1"}}`, `{"equal":false,
			"differences":[{"path":"$.id","type":"changed","expected":1,"actual":"1"}],
			"counts":{"added":0,"removed":0,"changed":1,"total":1}}`},
		{`{"expected":{"a":null},"actual":{"a":0}}`, `{"equal":false,
			"differences":[{"path":"$.a","type":"changed","expected":null,"actual":0}],
			"counts":{"added":0,"removed":0,"changed":1,"total":1}}`},
		{`{"expected":{"名前":"ä","a.b":1},"actual":{"名前":"a","a.b":1}}`, `{"equal":false,
			"differences":[{"path":"$[\"名前\"]","type":"changed","expected":"ä","actual":"a"}],
			"counts":{"added":0,"removed":0,"changed":1,"total":1}}`},
		{`{"expected":{},"actual":{}}`, `{"equal":true,"differences":[],"counts":{"added":0,"removed":0,"changed":0,"total":0}}`},
		{`{"expected":[],"actual":[null]}`, `{"equal":false,
			"differences":[{"path":"$[0]","type":"added","actual":null}],
			"counts":{"added":1,"removed":0,"changed":0,"total":1}}`},
		{`{"expected":"x","actual":{"x":1}}`, `{"equal":false,
			"differences":[{"path":"$","type":"changed","expected":"x","actual":{"x":1}}],
			"counts":{"added":0,"removed":0,"changed":1,"total":1}}`},
		{`{"expected":{"n":9007199254740992},"actual":{"n":9007199254740993}}`, `{"equal":false,
			"differences":[{"path":"$.n","type":"changed","expected":9007199254740992,"actual":9007199254740993}],
			"counts":{"added":0,"removed":0,"changed":1,"total":1}}`},
	} {
		expect(t, "object_diff", tc.args, tc.want)
	}
}

func TestObjectDiffBadInput(t *testing.T) {
	t.Parallel()
	badInput(t, "object_diff", []struct{ args, mention string }{
		{`{"actual":{}}`, `"expected"`},
		{`{"expected":{}}`, `"actual"`},
		{`{"expected":{},"actual":{},"deep":1}`, `"deep"`},
	})
}

func TestArrayOperations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{"operation":"unique","array":[1,"1",1.0,{"a":1,"b":2},{"b":2,"a":1},null,null]}`,
			`{"operation":"unique","result":[1,"1",{"a":1,"b":2},null],"length":4}`},
		{`{"operation":"unique","array":[]}`, `{"operation":"unique","result":[],"length":0}`},
		{`{"operation":"sort","array":[3,1,2,10]}`, `{"operation":"sort","result":[1,2,3,10],"length":4}`},
		{`{"operation":"sort","array":[3,1,2,10],"order":"desc"}`, `{"operation":"sort","result":[10,3,2,1],"length":4}`},
		{`{"operation":"sort","array":["b","a","B","é","10","9"]}`, `{"operation":"sort","result":["10","9","B","a","b","é"],"length":6}`},
		{`{"operation":"sort","array":[3,"b",null,true,[1],{"a":1},1,"a",false,[0,5]]}`,
			`{"operation":"sort","result":[null,false,true,1,3,"a","b",[0,5],[1],{"a":1}],"length":10}`},
		{`{"operation":"sort","array":[9007199254740993,9007199254740992,-1e3,0.5]}`,
			`{"operation":"sort","result":[-1000,0.5,9007199254740992,9007199254740993],"length":4}`},
		{`{"operation":"sort","array":[{"n":"b","age":3},{"n":"x"},{"n":"a","age":1},{"n":"c","age":3}],"by":"age"}`,
			`{"operation":"sort","result":[{"n":"a","age":1},{"n":"b","age":3},{"n":"c","age":3},{"n":"x"}],"length":4}`},
		{`{"operation":"sort","array":[{"n":"b","age":3},{"n":"x"},{"n":"a","age":1},{"n":"c","age":3}],"by":"age","order":"desc"}`,
			`{"operation":"sort","result":[{"n":"b","age":3},{"n":"c","age":3},{"n":"a","age":1},{"n":"x"}],"length":4}`},
		{`{"operation":"reverse","array":[1,[2,3],"x"]}`, `{"operation":"reverse","result":["x",[2,3],1],"length":3}`},
		{`{"operation":"reverse","array":[]}`, `{"operation":"reverse","result":[],"length":0}`},
		{`{"operation":"flatten","array":[1,[2,[3,[4,[]]]],{"a":[5]}]}`, `{"operation":"flatten","result":[1,2,3,4,{"a":[5]}],"length":5}`},
		{`{"operation":"chunk","array":[1,2,3,4,5],"size":2}`, `{"operation":"chunk","result":[[1,2],[3,4],[5]],"length":3}`},
		{`{"operation":"chunk","array":[1,2],"size":100}`, `{"operation":"chunk","result":[[1,2]],"length":1}`},
		{`{"operation":"chunk","array":[],"size":3}`, `{"operation":"chunk","result":[],"length":0}`},
		{`{"operation":"intersection","array":[1,2,2,{"a":1},"x"],"array2":[{"a":1},2.0,"y"]}`,
			`{"operation":"intersection","result":[2,{"a":1}],"length":2}`},
		{`{"operation":"union","array":[1,2,2],"array2":[3,1,"1"]}`, `{"operation":"union","result":[1,2,3,"1"],"length":4}`},
		{`{"operation":"difference","array":[1,2,2,3,"3"],"array2":[3]}`, `{"operation":"difference","result":[1,2,"3"],"length":3}`},
		{`{"operation":"difference","array":[1],"array2":[]}`, `{"operation":"difference","result":[1],"length":1}`},
		{`{"operation":"intersection","array":[],"array2":[1]}`, `{"operation":"intersection","result":[],"length":0}`},
		{`{"operation":"count","array":[1,"1",1.0,{"a":1},{"a":1}]}`,
			`{"operation":"count","result":5,"distinct":3,"occurrences":[{"value":1,"count":2},{"value":"1","count":1},{"value":{"a":1},"count":2}]}`},
		{`{"operation":"count","array":[]}`, `{"operation":"count","result":0,"distinct":0,"occurrences":[]}`},
		{`{"operation":"first","array":[7,8,9]}`, `{"operation":"first","result":7,"found":true}`},
		{`{"operation":"last","array":[7,8,9]}`, `{"operation":"last","result":9,"found":true}`},
		{`{"operation":"first","array":[]}`, `{"operation":"first","result":null,"found":false}`},
		{`{"operation":"first","array":[7,8,9],"size":2}`, `{"operation":"first","result":[7,8],"length":2,"found":true}`},
		{`{"operation":"last","array":[7,8,9],"size":2}`, `{"operation":"last","result":[8,9],"length":2,"found":true}`},
		{`{"operation":"last","array":[7],"size":5}`, `{"operation":"last","result":[7],"length":1,"found":true}`},
		{`{"operation":"last","array":[],"size":5}`, `{"operation":"last","result":[],"length":0,"found":false}`},
		{`{"operation":"sum","array":[1,2,3.5]}`, `{"operation":"sum","result":6.5}`},
		{`{"operation":"sum","array":[0.1,0.2]}`, `{"operation":"sum","result":0.3}`},
		{`{"operation":"sum","array":[]}`, `{"operation":"sum","result":0}`},
		{`{"operation":"sum","array":[-5,5]}`, `{"operation":"sum","result":0}`},
	} {
		expect(t, "array_operations", tc.args, tc.want)
	}
}

func TestArraySumExact(t *testing.T) {
	t.Parallel()
	// Through tooltest results are float64; check the exact sums directly.
	sum, err := sumArray([]any{tooltest.JSON(t, "1"), 0.5})
	if err != nil || sum != "1.5" {
		t.Errorf("sumArray = %v, %v", sum, err)
	}
	n, _ := jsondiff.DecodeArg("array", []byte(`[9007199254740992,1,1e-20]`))
	// 2^53 + 1 is not a float64, nor is the total; the sum is exact all the same.
	if sum, _ := sumArray(n.([]any)); sum != "9007199254740993.00000000000000000001" {
		t.Errorf("exact sum = %s", sum)
	}
	// Exponents too far apart for an exact sum fall back to float64.
	n, _ = jsondiff.DecodeArg("array", []byte(`[1e-5000,1]`))
	if sum, err := sumArray(n.([]any)); sum != "1" || err != nil {
		t.Errorf("sum of 1e-5000 and 1 = %s, %v", sum, err)
	}
	n, _ = jsondiff.DecodeArg("array", []byte(`[1e5000,1e-5000]`))
	if _, err := sumArray(n.([]any)); err == nil {
		t.Errorf("sum of 1e5000 and 1e-5000: no error")
	}
}

func TestArrayShuffle(t *testing.T) {
	t.Parallel()
	in := make([]any, 50)
	for i := range in {
		in[i] = float64(i)
	}
	arr := fmt.Sprint(in)
	args := `{"operation":"shuffle","array":` + jsonArray(in) + `}`
	moved := false
	for range 5 {
		got := run(t, "array_operations", args)
		res := got["result"].([]any)
		sorted := slices.Clone(res)
		slices.SortFunc(sorted, func(a, b any) int { return int(a.(float64) - b.(float64)) })
		if !reflect.DeepEqual(sorted, in) || got["length"] != 50.0 {
			t.Fatalf("shuffle of %s = %v: not a permutation", arr, res)
		}
		moved = moved || !reflect.DeepEqual(res, in)
	}
	if !moved {
		t.Errorf("five shuffles of 50 elements all kept the order")
	}
	expect(t, "array_operations", `{"operation":"shuffle","array":[]}`, `{"operation":"shuffle","result":[],"length":0}`)
}

func jsonArray(v []any) string {
	s := "["
	for i, e := range v {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(e)
	}
	return s + "]"
}

func TestArrayOperationsBadInput(t *testing.T) {
	t.Parallel()
	badInput(t, "array_operations", []struct{ args, mention string }{
		{`{"array":[1]}`, `"operation"`},
		{`{"operation":"sort"}`, `"array"`},
		{`{"operation":"median","array":[1]}`, `"operation"`},
		{`{"operation":"median","array":[1]}`, `"unique"`},
		{`{"operation":"sort","array":{"a":1}}`, `"array"`},
		{`{"operation":"sort","array":{"a":1}}`, "expected array"},
		{`{"operation":"sort","array":[1],"order":"up"}`, `"order"`},
		{`{"operation":"chunk","array":[1]}`, `operation "chunk" needs argument "size"`},
		{`{"operation":"chunk","array":[1],"size":0}`, `"size"`},
		{`{"operation":"chunk","array":[1],"size":1.5}`, `"size"`},
		{`{"operation":"intersection","array":[1]}`, `operation "intersection" needs argument "array2"`},
		{`{"operation":"union","array":[1]}`, `operation "union" needs argument "array2"`},
		{`{"operation":"difference","array":[1]}`, `operation "difference" needs argument "array2"`},
		{`{"operation":"union","array":[1],"array2":"x"}`, `"array2"`},
		{`{"operation":"sum","array":[1,"2"]}`, `argument "array": sum needs numbers, but array[1] is a string "2"`},
		{`{"operation":"sum","array":[null]}`, `array[0] is a null`},
		{`{"operation":"sort","array":[{"a":1},2],"by":"a"}`, `argument "by": sorting by key "a" needs an array of objects, but array[1] is a number 2`},
		{`{"operation":"sort","array":[1],"by":5}`, `"by"`},
	})
}
