package io.verglas.cache;

/**
 * The protection between a node and its origin (cumulative since start, except gauges).
 *
 * @param attempts calls made to the origin, retries included
 * @param retries attempts that repeated a failed call
 * @param failures calls that failed for an origin reason after their last attempt
 * @param shortCircuited calls failed at once because the circuit breaker was open
 * @param rejected calls refused because too many were waiting for a slot
 * @param inFlight calls running now
 * @param queued calls waiting for a slot now
 * @param circuitState CLOSED, OPEN, HALF_OPEN, or DISABLED when protection is off
 */
public record OriginStats(
    long attempts,
    long retries,
    long failures,
    long shortCircuited,
    long rejected,
    int inFlight,
    int queued,
    String circuitState) {}
