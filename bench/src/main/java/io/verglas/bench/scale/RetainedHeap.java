package io.verglas.bench.scale;

import java.lang.ref.Reference;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.vm.VM;

/**
 * The heap one component of a process holds: every object strongly reachable from its roots
 * through instance fields and array elements, with its size and class. The walk does not pass
 * through what every component shares and none owns: threads, thread groups, class loaders,
 * classes (so no static fields) and the referents of weak, soft and phantom references (what
 * a collection may clear). Objects two components both reach count in both.
 *
 * <p>Run it on a quiet stack: the walk reads fields while the component runs, which is
 * accurate to what changes meanwhile. It allocates a visited set of the graph's size.
 */
final class RetainedHeap {
  /**
   * Per class, how to read its reference fields: by offset (JOL, no access checks), or, where
   * the VM gives no offset (records, hidden classes such as lambdas), reflectively when the
   * field can be made accessible; a field that can be read neither way is not followed.
   */
  private static final ClassValue<Reads> REFERENCE_FIELDS = new ClassValue<>() {
    @Override
    protected Reads computeValue(Class<?> type) {
      List<Long> offsets = new ArrayList<>();
      List<Field> reflective = new ArrayList<>();
      for (Class<?> c = type; c != null; c = c.getSuperclass()) {
        for (Field field : c.getDeclaredFields()) {
          if (!Modifier.isStatic(field.getModifiers()) && !field.getType().isPrimitive()
              && !(c == Reference.class && !field.getName().equals("queue"))) {
            add(field, offsets, reflective);
          }
        }
      }
      return new Reads(instanceSize(type), offsets.stream().mapToLong(Long::longValue).toArray(),
          reflective.toArray(Field[]::new));
    }
  };

  /** A class's instance size and reference fields. */
  private record Reads(long size, long[] offsets, Field[] reflective) {}

  /** What a walk found: bytes and objects in all, and per class. */
  record Footprint(long bytes, long objects, Map<String, long[]> classes) {
  }

  private RetainedHeap() {}

  /** Walks from {@code roots}. */
  static Footprint of(Object... roots) {
    Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>(1 << 20));
    Deque<Object> pending = new ArrayDeque<>();
    Map<String, long[]> classes = new HashMap<>();
    for (Object root : roots) {
      push(root, seen, pending);
    }
    long bytes = 0;
    long objects = 0;
    while (!pending.isEmpty()) {
      Object object = pending.pop();
      long size = object.getClass().isArray() ? VM.current().sizeOf(object)
          : REFERENCE_FIELDS.get(object.getClass()).size();
      bytes += size;
      objects++;
      long[] perClass = classes.computeIfAbsent(object.getClass().getName(), c -> new long[2]);
      perClass[0]++;
      perClass[1] += size;
      references(object, seen, pending);
    }
    return new Footprint(bytes, objects, classes);
  }

  private static void references(Object object, Set<Object> seen, Deque<Object> pending) {
    Class<?> type = object.getClass();
    if (type.isArray()) {
      if (!type.getComponentType().isPrimitive()) {
        for (Object element : (Object[]) object) {
          push(element, seen, pending);
        }
      }
      return;
    }
    Reads reads = REFERENCE_FIELDS.get(type);
    for (long offset : reads.offsets()) {
      push(VM.current().getObject(object, offset), seen, pending);
    }
    for (Field field : reads.reflective()) {
      try {
        push(field.get(object), seen, pending);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException("Cannot read " + field + ": " + e.getMessage(), e);
      }
    }
  }

  /**
   * The size of an instance: JOL's layout, or where the VM gives no field offsets (records,
   * hidden classes) the header and the fields' sizes (4-byte references: compressed oops)
   * rounded up to 8 bytes.
   */
  private static long instanceSize(Class<?> type) {
    try {
      return ClassLayout.parseClass(type).instanceSize();
    } catch (RuntimeException noOffsets) {
      long bytes = VM.current().objectHeaderSize();
      for (Class<?> c = type; c != null; c = c.getSuperclass()) {
        for (Field field : c.getDeclaredFields()) {
          if (!Modifier.isStatic(field.getModifiers())) {
            bytes += fieldSize(field.getType());
          }
        }
      }
      return (bytes + 7) / 8 * 8;
    }
  }

  private static int fieldSize(Class<?> type) {
    if (type == long.class || type == double.class) {
      return 8;
    }
    if (type == int.class || type == float.class || !type.isPrimitive()) {
      return 4;
    }
    return type == short.class || type == char.class ? 2 : 1;
  }

  private static void add(Field field, List<Long> offsets, List<Field> reflective) {
    try {
      offsets.add(VM.current().fieldOffset(field));
    } catch (RuntimeException noOffset) {
      if (field.trySetAccessible()) {
        reflective.add(field);
      }
    }
  }

  private static void push(Object object, Set<Object> seen, Deque<Object> pending) {
    if (object == null || object instanceof Thread || object instanceof ThreadGroup
        || object instanceof ClassLoader || object instanceof Class<?>) {
      return;
    }
    if (seen.add(object)) {
      pending.push(object);
    }
  }

  /**
   * Per class, what {@code large} holds beyond {@code small}, in bytes over {@code tables}:
   * the {@code limit} largest, largest first.
   */
  static Map<String, Double> perTable(Footprint small, Footprint large, int tables, int limit) {
    Map<String, Double> growth = new LinkedHashMap<>();
    large.classes().entrySet().stream()
        .map(e -> Map.entry(e.getKey(),
            e.getValue()[1] - small.classes().getOrDefault(e.getKey(), new long[2])[1]))
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(limit)
        .forEach(e -> growth.put(e.getKey(), Math.round(e.getValue() * 10.0 / tables) / 10.0));
    return growth;
  }
}
