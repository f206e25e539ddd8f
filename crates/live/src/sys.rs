//! The system calls libc does not wrap, wrapped once. Every `unsafe` of the
//! project is here or in this crate, each with a `// SAFETY:` comment.
