package io.verglas.materializer.source;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the enumerator checkpoints: for each stream the last segment key it discovered (the
 * next listing starts after it), and the discovered segments no reader has taken yet.
 * Segments a reader holds are in that reader's state, not here.
 */
public final class WalEnumeratorState {
  private final Map<String, String> discoveredUpTo;
  private final List<WalSplit> unassigned;

  public WalEnumeratorState(Map<String, String> discoveredUpTo, List<WalSplit> unassigned) {
    this.discoveredUpTo = Collections.unmodifiableMap(new TreeMap<>(discoveredUpTo));
    this.unassigned = List.copyOf(unassigned);
  }

  public static WalEnumeratorState empty() {
    return new WalEnumeratorState(Map.of(), List.of());
  }

  public Map<String, String> discoveredUpTo() {
    return discoveredUpTo;
  }

  public List<WalSplit> unassigned() {
    return unassigned;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WalEnumeratorState other && discoveredUpTo.equals(other.discoveredUpTo)
        && unassigned.equals(other.unassigned);
  }

  @Override
  public int hashCode() {
    return discoveredUpTo.hashCode() * 31 + unassigned.hashCode();
  }

  @Override
  public String toString() {
    return "WalEnumeratorState{discoveredUpTo=" + discoveredUpTo + ", unassigned=" + unassigned + "}";
  }
}
