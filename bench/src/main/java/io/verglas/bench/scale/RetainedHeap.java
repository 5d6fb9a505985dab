package io.verglas.bench.scale;

import io.netty.util.concurrent.EventExecutor;
import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.vm.VM;

/**
 * The heap one component of a process holds: every object strongly reachable from its roots
 * through instance fields and array elements, with its size and class. The walk does not pass
 * through what every component shares and none owns: threads, thread groups, class loaders,
 * classes (so no static fields), the referents of weak, soft and phantom references (what
 * a collection may clear), and nothing a phantom reference holds: cleaners (the JDK's common
 * one, the PostgreSQL driver's) link every registration of the JVM in one list, so a walk
 * through them would reach every component's cleanup actions (and the connections these
 * close); nor through gRPC's registry of every server and channel of the JVM, nor Netty's
 * event loops (a thread's state: the channels of every client and server sharing the loop).
 * Objects two components both reach count in both.
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
      List<String> names = new ArrayList<>();
      List<Field> reflective = new ArrayList<>();
      // a phantom reference (a cleaner's registration) is a leaf: see the class comment
      Class<?> top = PhantomReference.class.isAssignableFrom(type) ? type : null;
      for (Class<?> c = type; c != null && c != top; c = c.getSuperclass()) {
        for (Field field : c.getDeclaredFields()) {
          if (!Modifier.isStatic(field.getModifiers()) && !field.getType().isPrimitive()
              && !(c == Reference.class && !field.getName().equals("queue"))) {
            add(field, offsets, names, reflective);
          }
        }
      }
      return new Reads(instanceSize(type), offsets.stream().mapToLong(Long::longValue).toArray(),
          names.toArray(String[]::new), reflective.toArray(Field[]::new));
    }
  };

  /** A class's instance size and reference fields. */
  private record Reads(long size, long[] offsets, String[] names, Field[] reflective) {}

  /**
   * What a walk found: bytes and objects in all, per class, and (when asked for) per class and
   * owner path: "[B @ Entry.value < DramTier.map < ..." names the nearest owners first, each as
   * its class's simple name and the field followed out of it; what the JDK's and Caffeine's
   * collections hold in between is left out.
   */
  record Footprint(long bytes, long objects, Map<String, long[]> classes,
      Map<String, long[]> paths) {
  }

  private RetainedHeap() {}

  /** Walks from {@code roots}. */
  static Footprint of(Object... roots) {
    return new Walk(false).run(roots);
  }

  /** Walks from {@code roots}, also summing bytes by owner path (more time and memory). */
  static Footprint withPaths(Object... roots) {
    return new Walk(true).run(roots);
  }

  /**
   * gRPC's process-wide registry of servers and channels (channelz): every channel holds it, and
   * through it every gRPC server of the JVM (another component's Flight server among them).
   */
  private static final String GRPC_REGISTRY = "grpc.InternalChannelz";

  /** One walk: breadth first, so an object's path is a shortest one from the roots. */
  private static final class Walk {
    /** Owners named in a path, nearest first. */
    private static final int HOPS = 6;
    private final Map<Object, String> seen = new IdentityHashMap<>(1 << 20);
    private final Deque<Object> pending = new ArrayDeque<>();
    private final Map<String, long[]> classes = new HashMap<>();
    private final Map<String, long[]> paths = new HashMap<>();
    private final Map<String, String> interned = new HashMap<>();
    private final boolean tracePaths;

    Walk(boolean tracePaths) {
      this.tracePaths = tracePaths;
    }

    Footprint run(Object... roots) {
      for (Object root : roots) {
        push(root, "root");
      }
      long bytes = 0;
      long objects = 0;
      while (!pending.isEmpty()) {
        Object object = pending.pollFirst();
        long size = object.getClass().isArray() ? VM.current().sizeOf(object)
            : REFERENCE_FIELDS.get(object.getClass()).size();
        bytes += size;
        objects++;
        add(classes, object.getClass().getName(), size);
        String path = seen.get(object);
        if (tracePaths) {
          add(paths, object.getClass().getName() + " @ " + path, size);
        }
        references(object, path);
      }
      return new Footprint(bytes, objects, classes, paths);
    }

    private static void add(Map<String, long[]> sums, String key, long size) {
      long[] sum = sums.computeIfAbsent(key, c -> new long[2]);
      sum[0]++;
      sum[1] += size;
    }

    private void references(Object object, String path) {
      Class<?> type = object.getClass();
      if (type.isArray()) {
        if (!type.getComponentType().isPrimitive()) {
          for (Object element : (Object[]) object) {
            push(element, path);
          }
        }
        return;
      }
      Reads reads = REFERENCE_FIELDS.get(type);
      for (int i = 0; i < reads.offsets().length; i++) {
        push(VM.current().getObject(object, reads.offsets()[i]),
            child(type, reads.names()[i], path));
      }
      for (Field field : reads.reflective()) {
        try {
          push(field.get(object), child(type, field.getName(), path));
        } catch (IllegalAccessException e) {
          throw new IllegalStateException("Cannot read " + field + ": " + e.getMessage(), e);
        }
      }
    }

    /** The path of what {@code owner}'s {@code field} holds: the owner's, one hop longer. */
    private String child(Class<?> owner, String field, String path) {
      if (!tracePaths) {
        return "";
      }
      String name = owner.getName();
      if (name.startsWith("java.") || name.startsWith("jdk.") || name.startsWith("sun.")
          || name.startsWith("com.github.benmanes.caffeine.")) {
        return path;
      }
      String hop = owner.getSimpleName().isEmpty() ? name : owner.getSimpleName();
      String[] hops = path.split(" < ", HOPS);
      StringBuilder longer = new StringBuilder(hop).append('.').append(field);
      for (int i = 0; i < Math.min(hops.length, HOPS - 1); i++) {
        longer.append(" < ").append(hops[i]);
      }
      return interned.computeIfAbsent(longer.toString(), k -> k);
    }

    private void push(Object object, String path) {
      if (object == null || object instanceof Thread || object instanceof ThreadGroup
          || object instanceof ClassLoader || object instanceof Class<?>
          || object instanceof EventExecutor
          || object.getClass().getName().endsWith(GRPC_REGISTRY)) {
        return;
      }
      if (!seen.containsKey(object)) {
        seen.put(object, path);
        pending.addLast(object);
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

  private static void add(Field field, List<Long> offsets, List<String> names,
      List<Field> reflective) {
    try {
      offsets.add(VM.current().fieldOffset(field));
      names.add(field.getName());
    } catch (RuntimeException noOffset) {
      if (field.trySetAccessible()) {
        reflective.add(field);
      }
    }
  }

  /**
   * Per class (or path), what {@code large} holds beyond {@code small}, in bytes over {@code tables}:
   * the {@code limit} largest, largest first.
   */
  static Map<String, Double> perTable(Map<String, long[]> small, Map<String, long[]> large,
      int tables, int limit) {
    Map<String, Double> growth = new LinkedHashMap<>();
    large.entrySet().stream()
        .map(e -> Map.entry(e.getKey(),
            e.getValue()[1] - small.getOrDefault(e.getKey(), new long[2])[1]))
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(limit)
        .forEach(e -> growth.put(e.getKey(), Math.round(e.getValue() * 10.0 / tables) / 10.0));
    return growth;
  }
}
