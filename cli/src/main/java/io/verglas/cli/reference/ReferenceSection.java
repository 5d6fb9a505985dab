package io.verglas.cli.reference;

import io.verglas.config.Settings;

/**
 * One table of the configuration reference: a component's settings and how a key is written
 * where it is given ({@code --} for a job's arguments, nothing for a properties file's keys).
 */
record ReferenceSection(Settings<?> settings, String keyForm) {}
