package dev.bothy.console.http;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a console route that changes something: it needs {@code admin:write} besides {@code
 * admin:read}, is refused while {@code console.readOnly} is true, and logs the token's name.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Acts {}
