package io.verglas.maintenance.expire;

/**
 * One expiry pass: snapshots expired and left, and the materializer's last snapshot that was
 * protected ({@code -1} when the table has none).
 */
public record ExpiryResult(int expired, int remaining, long protectedSnapshotId) {}
