package bank

import (
	"fmt"

	"github.com/stampede-bench/stampede/internal/membudget"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/workload"
)

const details = `A table of accounts and SERIALIZABLE transactions that transfer money between
two of them (after cockroach workload bank). Transfers keep the total of all
balances, rows x initial-balance, which ` + "`stampede check bank`" + ` verifies: run
it after a run with crashes, restarts or failovers to test that no committed
transfer was half-applied or lost.

Every transfer reads both balances and writes both new balances computed by
the client, so a lost update shows as a changed total. Serialization
failures and deadlocks are retried (counted as tolerated errors), as are
lost connections (up to 5 in a row).

Examples:
  stampede init bank --rows 10000 'postgresql://postgres@localhost:5432/bank'
  stampede run bank --duration 60s --tolerate-errors 'postgresql://postgres@localhost:5432/bank'
  stampede run bank --rows 10000 --max-transfer 50 --concurrency 32 --duration 5m 'postgresql://root@localhost:26257/bank?sslmode=disable'
  stampede check bank 'postgresql://postgres@localhost:5432/bank'
  stampede check bank --rows 10000 'postgresql://postgres@localhost:5432/bank'`

var bankMeta = workload.Meta{
	Name:        "bank",
	Description: "bank transfers between accounts in SERIALIZABLE transactions; check verifies the total balance",
	Details:     details,
	Version:     "1.0.0",
	New:         newBank,
}

func init() {
	workload.Register(bankMeta)
}

// Flag defaults.
const (
	defaultRows           = 1000
	defaultPayloadBytes   = 100
	defaultInitialBalance = 1000
	defaultMaxTransfer    = 999
)

// Bounds of the amounts, so that a run cannot take a balance or the total
// out of BIGINT's range (the column's type; check sums the balances): the
// total balance leaves half of the range free, and a balance would have
// to move by 2^62 in transfers of at most 2^40 to leave it, over 2^22
// transfers the same way. A transfer that would still leave it is refused
// (worker.apply).
const (
	maxMaxTransfer  = 1 << 40
	maxTotalBalance = 1 << 62
)

// tableName is the workload's one table.
const tableName = "bank"

// bank is the generator.
type bank struct {
	flags workload.Flags

	rows           int
	payloadBytes   int
	initialBalance int64
	maxTransfer    int64
	seed           uint64
	batchSize      int

	// tenant is the tenant whose rows the generator works on (0: none,
	// the table has no tenant column); tenantArg is it as bound to
	// statements and rows.
	tenant    int
	tenantArg any

	// share is the share of a split load, index and count (LoadShare);
	// count 0 for the whole data.
	share [2]int
}

var (
	_ workload.Flagser = (*bank)(nil)
	_ workload.Hookser = (*bank)(nil)
	_ workload.Opser   = (*bank)(nil)
	_ workload.Seeder  = (*bank)(nil)

	_ workload.TenantColumner = (*bank)(nil)
)

func newBank() workload.Generator {
	g := &bank{seed: 1}
	fs := pflag.NewFlagSet(tableName, pflag.ContinueOnError)
	g.flags = workload.Flags{FlagSet: fs, Meta: map[string]workload.FlagMeta{}}
	fs.IntVar(&g.rows, "rows", defaultRows, "number of accounts (ids 0..rows-1)")
	fs.IntVar(&g.payloadBytes, "payload-bytes", defaultPayloadBytes, "size of each account's payload, in bytes")
	fs.Int64Var(&g.initialBalance, "initial-balance", defaultInitialBalance,
		"balance every account starts with; the total is rows x initial-balance, at most 2^62")
	fs.Int64Var(&g.maxTransfer, "max-transfer", defaultMaxTransfer,
		"largest amount one transfer moves (amounts are uniform in [1, max-transfer]), at most 2^40")
	fs.IntVar(&g.batchSize, "batch-size", defaultBatchSize,
		"accounts per batch of initial data (cockroach's --batch-size): each batch draws its payloads from its own stream, so the loaded payloads depend on it, not the ids and balances that runs and check use")
	g.flags.Meta["max-transfer"] = workload.FlagMeta{RuntimeOnly: true}
	return g
}

// Meta implements the Generator interface.
func (*bank) Meta() workload.Meta { return bankMeta }

// Flags implements the Flagser interface.
func (g *bank) Flags() workload.Flags { return g.flags }

// SetSeed implements the Seeder interface: batch b of the initial data
// draws its payloads from the stream (seed, b).
func (g *bank) SetSeed(seed uint64) { g.seed = seed }

// Hooks implements the Hookser interface.
func (g *bank) Hooks() workload.Hooks {
	return workload.Hooks{
		Validate:         g.validate,
		PreRun:           g.preRun,
		CheckConsistency: g.checkConsistency,
	}
}

// validate checks the flags' bounds.
func (g *bank) validate() error {
	switch {
	case g.rows < 2:
		return fmt.Errorf("--rows must be at least 2 (a transfer needs two accounts), not %d", g.rows)
	case g.payloadBytes < 0:
		return fmt.Errorf("--payload-bytes must not be negative, not %d", g.payloadBytes)
	case g.initialBalance < 0:
		return fmt.Errorf("--initial-balance must not be negative, not %d", g.initialBalance)
	case g.batchSize < 1:
		return fmt.Errorf("--batch-size must be at least 1, not %d", g.batchSize)
	case g.maxTransfer < 1:
		return fmt.Errorf("--max-transfer must be at least 1, not %d", g.maxTransfer)
	case g.maxTransfer > maxMaxTransfer:
		return fmt.Errorf("--max-transfer must be at most %d (2^40), not %d: larger amounts could take balances out of BIGINT's range", maxMaxTransfer, g.maxTransfer)
	case g.initialBalance > maxTotalBalance/int64(g.rows):
		return fmt.Errorf("--initial-balance must be at most %d with --rows %d, not %d: the total balance, rows x initial-balance, must be at most %d (2^62), half of BIGINT's range, the other half being room for the balances transfers move",
			maxTotalBalance/int64(g.rows), g.rows, g.initialBalance, int64(maxTotalBalance))
	}
	// A loader holds a batch's payloads twice (drawn, then as the rows'
	// strings) and its rows: refused before they are allocated.
	rows := int64(min(g.batchSize, g.rows))
	if err := membudget.Check("--payload-bytes", int64(g.payloadBytes), 2*rows,
		fmt.Sprintf("byte of payload: --batch-size %d rows, held twice", rows), "or a smaller --batch-size"); err != nil {
		return err
	}
	return membudget.Check("--batch-size", rows, bytesPerBatchRow+2*int64(g.payloadBytes),
		"row of a load batch", "the default, 1000, is enough")
}

// bytesPerBatchRow is what a row of a load batch costs beside its
// payload (its values boxed in a []any, the COPY stream's encoding), with
// room.
const bytesPerBatchRow = 256

// totalBalance is the sum of the balances, which transfers keep.
func (g *bank) totalBalance() int64 { return int64(g.rows) * g.initialBalance }

// Tables implements the Generator interface. With a tenant (SetTenant)
// the table leads with tenant_id, also first in the primary key.
func (g *bank) Tables() []workload.Table {
	schema := "(id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, payload TEXT NOT NULL)"
	columns := []string{"id", "balance", "payload"}
	if g.tenant != 0 {
		schema = "(" + workload.TenantColumn + " INT NOT NULL, id BIGINT NOT NULL, balance BIGINT NOT NULL, payload TEXT NOT NULL, " +
			"PRIMARY KEY (" + workload.TenantColumn + ", id))"
		columns = append([]string{workload.TenantColumn}, columns...)
	}
	rows := workload.BatchedTuples{
		NumBatches: g.batches(),
		NumRows:    int64(g.rows),
		FillBatch:  g.fillBatch,
	}
	if g.share[1] > 0 {
		lo, hi := shareRange(g.share[0], g.share[1], rows.NumBatches)
		rows = workload.ShareBatches(rows, lo, hi, int64(g.batchSize))
	}
	return []workload.Table{{
		Name:        tableName,
		Schema:      schema,
		Columns:     columns,
		InitialRows: rows,
	}}
}

// batches is the number of batches of the load.
func (g *bank) batches() int { return (g.rows + g.batchSize - 1) / g.batchSize }

// shareRange returns share index of count's part of n batches: [lo, hi).
func shareRange(index, count, n int) (lo, hi int) {
	return index * n / count, (index + 1) * n / count
}

var _ workload.ShareLoader = (*bank)(nil)

// LoadShare implements the workload.ShareLoader interface: share index of
// count is a contiguous range of the accounts (of whole batches).
func (g *bank) LoadShare(index, count int) error {
	if g.tenant != 0 {
		return fmt.Errorf("--clients with a tenant: a fleet's load is not split between clients; load it from one client")
	}
	if n := g.batches(); count > n {
		return fmt.Errorf("--clients %d with --rows %d: each client loads accounts of its own, %d or more; give --rows %d or more (the same to every client), or --clients %d or fewer", count, g.rows, g.batchSize, count*g.batchSize, n)
	}
	g.share = [2]int{index, count}
	return nil
}

// ShareOf implements the workload.ShareLoader interface: "ids A-B", the
// accounts of share index of count.
func (g *bank) ShareOf(index, count int) string {
	lo, hi := shareRange(index, count, g.batches())
	return fmt.Sprintf("ids %d-%d", lo*g.batchSize, min(hi*g.batchSize, g.rows)-1)
}

var _ workload.DataSpecer = (*bank)(nil)

// DataKey implements the DataSpecer interface.
func (*bank) DataKey() string { return "bank" }

// DataSettings implements the DataSpecer interface: the number of
// accounts and their initial balance, which runs and checks depend on.
func (g *bank) DataSettings() []workload.DataSetting {
	var out []workload.DataSetting
	for _, s := range workload.FlagSettings(g.flags) {
		if s.Name == "rows" || s.Name == "initial-balance" {
			out = append(out, s)
		}
	}
	return out
}
