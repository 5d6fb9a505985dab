package io.verglas.cli.local;

import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the admin endpoint shows besides the feed, as JSON: {@code /health}, {@code /stats}
 * (the cache node's statistics), {@code /maintenance?table=ns.t} (a table's status; throws
 * {@link org.apache.iceberg.exceptions.NoSuchTableException} for an unknown table) and
 * {@code /heat?table=ns.t} (the cache node's heat of the table) and {@code /status} (what the
 * status page at {@code /} shows, {@link io.verglas.cli.status.StatusReport}).
 */
record AdminPages(Supplier<String> health, Supplier<String> stats,
    Function<String, String> maintenance, Function<String, String> heat, Supplier<String> status) {}
