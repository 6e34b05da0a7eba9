/* SPDX-License-Identifier: MIT */
/* stockade doctor: what this machine offers, what each module finds here,
 * which profiles can run (stockade(1) DOCTOR). */
#pragma once

int doctor_main(int argc, char **argv);
