package io.verglas.cli.local;

import io.verglas.cli.status.Readiness;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the admin endpoint shows besides the feed, as JSON: {@code /health}, {@code /stats}
 * (the cache node's statistics), {@code /maintenance?table=ns.t} (a table's status; throws
 * {@link org.apache.iceberg.exceptions.NoSuchTableException} for an unknown table) and
 * {@code /heat?table=ns.t} (the cache node's heat of the table) and {@code /status} (what the
 * status page at {@code /} shows, {@link io.verglas.cli.status.StatusReport}), {@code /ready}
 * (503 unless every readiness check passes) and {@code /metrics} (Prometheus text).
 */
record AdminPages(Supplier<String> health, Supplier<String> stats,
    Function<String, String> maintenance, Function<String, String> heat, Supplier<String> status,
    Supplier<Readiness.Answer> ready, Supplier<String> metrics) {}
