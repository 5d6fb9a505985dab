package io.verglas.cache.writeback.fragment;

import java.nio.file.Path;
import java.util.Optional;

/**
 * A fragment file found in a store, for a scrubber: its header, or empty when the header is
 * unreadable (the file then counts as corrupt), and the bytes it occupies.
 */
public record StoredFragment(Path file, Optional<FragmentHeader> header, long bytes) {}
