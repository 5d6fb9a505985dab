package io.verglas.materializer.keyindex;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Numbers the few distinct strings many cache entries share (stream ids, data file paths), so
 * that an entry holds an int instead of a reference; each number counts the entries holding it
 * and is reused once none does, so the strings kept are those live entries name.
 *
 * <p>Why numbers, not references: an entry updated in place with a reference made the garbage
 * collector's write barrier dirty the card of an old object on nearly every update (the path of
 * a file opened a moment ago points into another region), and each dirty card was scanned again.
 * Number 0 stands for null.
 *
 * <p>Not thread-safe.
 */
final class CountedStrings {
  private final Map<String, Integer> numbers = new HashMap<>();
  private final List<String> strings = new ArrayList<>();
  private final List<Integer> free = new ArrayList<>();
  private int[] holders = new int[16];
  /** The last string numbered, by identity: the entries of one flush share a few instances. */
  private String last;
  private int lastNumber;

  CountedStrings() {
    strings.add(null);
  }

  /** The number of {@code value} (0 for null), held once more. */
  int hold(String value) {
    if (value == null) {
      return 0;
    }
    int number = numberIfHeld(value);
    if (number == 0) {
      number = assign(value);
    }
    holders[number]++;
    last = value;
    lastNumber = number;
    return number;
  }

  /** Lets go of one hold of {@code number}; the string is forgotten with its last holder. */
  void release(int number) {
    if (number == 0) {
      return;
    }
    if (--holders[number] == 0) {
      String value = strings.set(number, null);
      numbers.remove(value);
      free.add(number);
      if (value == last) {
        last = null;
      }
    }
  }

  /** The number of {@code value} if an entry holds it, otherwise 0; holds nothing. */
  int numberIfHeld(String value) {
    if (value == null) {
      return 0;
    }
    if (value == last) {
      return lastNumber;
    }
    Integer known = numbers.get(value);
    return known == null ? 0 : known;
  }

  /** The string numbered {@code number} (null for 0). */
  String get(int number) {
    return strings.get(number);
  }

  /** How many distinct strings are held. */
  int size() {
    return numbers.size();
  }

  /** Gives {@code value}, held by no entry, a number: a freed one, or the next. */
  private int assign(String value) {
    int number;
    if (free.isEmpty()) {
      number = strings.size();
      strings.add(value);
      if (number == holders.length) {
        holders = Arrays.copyOf(holders, number * 2);
      }
    } else {
      number = free.remove(free.size() - 1);
      strings.set(number, value);
    }
    numbers.put(value, number);
    return number;
  }
}
