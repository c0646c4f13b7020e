// SPDX-License-Identifier: Apache-2.0
// Crowd files of a generated city (shepherds.json); owned by the shepherds work of issue 7.
