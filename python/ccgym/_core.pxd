# Mirrors include/ccgym/*.h one to one; keep them in sync.
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t


cdef extern from "ccgym/rng.h" nogil:
    ctypedef struct ccgym_pcg64:
        pass
    void ccgym_pcg64_seed_words(ccgym_pcg64 *rng, const uint32_t *words, size_t n_words)
    void ccgym_pcg64_seed_range(ccgym_pcg64 *rng, uint64_t base, size_t n)
    uint64_t ccgym_pcg64_next64(ccgym_pcg64 *rng)
    double ccgym_pcg64_next_double(ccgym_pcg64 *rng)


cdef extern from "ccgym/driver.h" nogil:
    enum:
        CCGYM_AUTORESET_NEXT_STEP
        CCGYM_AUTORESET_SAME_STEP
        CCGYM_AUTORESET_DISABLED

    ctypedef struct ccgym_batch:
        size_t n
        void *state
        const void *params
        size_t params_stride
        ccgym_pcg64 *rng
        int64_t *episode_start
        uint8_t *pending_reset
        double *episode_return
        int64_t max_episode_steps
        int64_t t
        int64_t start_bound
        int64_t start_scan
        int check_truncation
        int autoreset_mode
        float *obs
        double *reward
        uint8_t *terminated
        uint8_t *truncated
        float *final_obs
        double *final_return
        int64_t *final_length

    ctypedef struct ccgym_env_def:
        const char *name
        int obs_dim
        int action_dim
        int64_t n_actions
        size_t state_size
        size_t params_size
        double default_a
        double default_b
        void (*step_range)(const ccgym_batch *b, const void *actions, size_t begin, size_t end) noexcept nogil

    const ccgym_env_def ccgym_cartpole_def
    const ccgym_env_def ccgym_mountain_car_def
    const ccgym_env_def ccgym_continuous_mountain_car_def
    const ccgym_env_def ccgym_pendulum_def
    const ccgym_env_def ccgym_acrobot_def

    void ccgym_batch_step(const ccgym_env_def *d, ccgym_batch *b, const void *actions,
                          int n_threads)
    void ccgym_batch_reset(const ccgym_env_def *d, ccgym_batch *b, const uint8_t *mask,
                           double a, double bnd, int n_threads)


cdef extern from "ccgym/cartpole.h" nogil:
    ctypedef struct ccgym_cartpole_params:
        pass
    void ccgym_cartpole_params_init(ccgym_cartpole_params *p, double gravity, double masscart,
                                    double masspole, double length, double force_mag,
                                    double tau, int euler, int sutton_barto_reward)


cdef extern from "ccgym/mountain_car.h" nogil:
    ctypedef struct ccgym_mountain_car_params:
        pass
    void ccgym_mountain_car_params_init(ccgym_mountain_car_params *p, double goal_velocity,
                                        double force, double gravity)


cdef extern from "ccgym/continuous_mountain_car.h" nogil:
    ctypedef struct ccgym_continuous_mountain_car_params:
        pass
    void ccgym_continuous_mountain_car_params_init(ccgym_continuous_mountain_car_params *p,
                                                   double goal_velocity, double power)


cdef extern from "ccgym/pendulum.h" nogil:
    ctypedef struct ccgym_pendulum_params:
        pass
    void ccgym_pendulum_params_init(ccgym_pendulum_params *p, double g, double m, double l,
                                    double max_speed, double max_torque, double dt)


cdef extern from "ccgym/acrobot.h" nogil:
    ctypedef struct ccgym_acrobot_params:
        pass
    void ccgym_acrobot_params_init(ccgym_acrobot_params *p, double link_length_1,
                                   double link_length_2, double link_mass_1,
                                   double link_mass_2, double link_com_pos_1,
                                   double link_com_pos_2, double link_moi,
                                   double max_vel_1, double max_vel_2,
                                   double torque_noise_max, int book, int use_npy_fma_trig)
