package io.verglas.cache.block;

import io.netty.buffer.ByteBuf;

/**
 * A block handed to a reader. {@code data} is the reader's own reference to the block's bytes
 * (readable bytes = the block): read it, never write it, and release it exactly once when done
 * (a DRAM hit is a retained view of the cached direct buffer; other reads wrap heap arrays).
 * {@code fromCache} tells whether a tier held it (true) or it was loaded or joined an in-flight
 * load (false).
 */
public record BlockRead(ByteBuf data, boolean fromCache) {}
