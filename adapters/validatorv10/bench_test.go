package validatorv10

import (
	"testing"

	"github.com/go-playground/validator/v10"
)

type benchUser struct {
	Name  string `json:"name" validate:"required"`
	Email string `json:"email" validate:"email"`
	Bio   string `json:"bio" validate:"min=10"`
	Age   int    `json:"age" validate:"gte=18"`
}

func benchErr(b *testing.B) error {
	err := newValidate().Struct(benchUser{Email: "not-an-email", Bio: "short", Age: 3})
	if ve, ok := err.(validator.ValidationErrors); !ok || len(ve) != 4 {
		b.Fatalf("validate.Struct = %v, want 4 failing fields", err)
	}
	return err
}

// BenchmarkAppendIssues converts the bench's four failing fields (the
// struct of bench/validator_test.go) into a new list each time and into a
// reused one.
func BenchmarkAppendIssues(b *testing.B) {
	err := benchErr(b)
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Issues(err)
		}
	})
	b.Run("reused", func(b *testing.B) {
		list, _ := appendIssues(nil, err, nil)
		b.ReportAllocs()
		for b.Loop() {
			list, _ = appendIssues(list[:0], err, nil)
		}
	})
}
